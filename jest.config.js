/**
 * Three projects; `npm test` runs all of them, `npm run test:unit` only the first.
 *  - unit (test/unit/): the pure Team core and other logic in-process. No Temporal server, no child
 *    processes, no sockets, no package installs; runs in seconds.
 *  - host (test/host/): tests that need this machine: real commands under bubblewrap, local HTTP
 *    servers, docker-compose validation (which may apt-install it), and workflow replay (which
 *    bundles the workflow code).
 *  - integration (test/integration/): workflows on a real Temporal dev server that
 *    test/support/globalSetup.ts starts (built by scripts/install-temporal-cli.sh) on free ports,
 *    and stops afterwards. With AGENT_TEAMS_TEST_TARGET=cluster (`npm run test:cluster`) it runs on
 *    the cluster of `npm run cluster` instead, and also takes test/cluster/ (drills, Web UI).
 */
const onCluster = process.env.AGENT_TEAMS_TEST_TARGET === 'cluster';
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
      displayName: 'host',
      testMatch: ['<rootDir>/test/host/**/*.test.ts'],
      transform: { '^.+\\.ts$': tsJest },
      testEnvironment: 'node',
    },
    {
      displayName: 'integration',
      // test/cluster/: drills that kill the cluster's services, only on the cluster (`npm run test:cluster`).
      testMatch: ['<rootDir>/test/integration/**/*.test.ts', ...(onCluster ? ['<rootDir>/test/cluster/**/*.test.ts'] : [])],
      transform: { '^.+\\.ts$': tsJest },
      testEnvironment: 'node',
      globalSetup: '<rootDir>/test/support/globalSetup.ts',
      globalTeardown: '<rootDir>/test/support/globalTeardown.ts',
      setupFilesAfterEnv: ['<rootDir>/test/support/integrationTimeout.ts'],
    },
  ],
};
