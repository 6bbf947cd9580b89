/**
 * Two projects:
 *  - unit: the pure Team core and other logic, no Temporal server.
 *  - integration: workflows on a real Temporal dev server that test/support/globalSetup.ts starts
 *    (built by scripts/install-temporal-cli.sh) on free ports, and stops afterwards.
 */
const tsJest = ['ts-jest', { tsconfig: 'tsconfig.json' }];

/** @type {import('jest').Config} */
module.exports = {
  projects: [
    {
      displayName: 'unit',
      testMatch: ['<rootDir>/test/unit/**/*.test.ts'],
      transform: { '^.+\\.ts$': tsJest },
      testEnvironment: 'node',
    },
    {
      displayName: 'integration',
      testMatch: ['<rootDir>/test/integration/**/*.test.ts'],
      transform: { '^.+\\.ts$': tsJest },
      testEnvironment: 'node',
      globalSetup: '<rootDir>/test/support/globalSetup.ts',
      globalTeardown: '<rootDir>/test/support/globalTeardown.ts',
      setupFilesAfterEnv: ['<rootDir>/test/support/integrationTimeout.ts'],
    },
  ],
};
