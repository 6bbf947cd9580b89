// @ts-check
import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

// Workflow code runs in Temporal's deterministic sandbox, and shared/ is imported by it:
// neither may reach for Node built-ins (fs, crypto, timers, ...).
const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

/**
 * Import boundaries between the layers. Client, workflows and activities meet only in shared/
 * (the wire contract in shared/contract declares the workflow function types and the activity
 * interfaces), so none imports another's code, types included: no circle activities → client →
 * workflows → activities. A relative import that climbs out to a forbidden top-level folder fails.
 */
const boundary = (files, forbidden, message) => ({
  files,
  rules: {
    '@typescript-eslint/no-restricted-imports': ['error', { patterns: forbidden.map((folder) => ({ regex: `^(\\.\\./)+${folder}(/|$)`, message })) }],
  },
});

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'coverage/**', 'test-artifacts/**', 'eslint.config.mjs', 'jest.config.js', 'scripts/*.js', 'test/support/*.cjs'] },
  eslint.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/only-throw-error': 'error',
      // Prettier wraps code at 160 columns; this catches the long strings it cannot wrap.
      'max-len': ['error', { code: 160, ignoreUrls: true }],
    },
  },
  {
    files: ['workflows/**/*.ts', 'shared/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: nodeBuiltins.map((name) => ({ name, message: 'Node built-ins are not allowed in workflow or shared code (determinism).' })),
          patterns: [
            {
              group: ['@temporalio/client', '@temporalio/worker', '@temporalio/activity'],
              message: 'Workflow/shared code may only import @temporalio/workflow or @temporalio/common.',
            },
          ],
        },
      ],
      'no-restricted-globals': [
        'error',
        { name: 'process', message: 'No environment access in workflow/shared code.' },
        { name: 'setTimeout', message: 'Use sleep() from @temporalio/workflow.' },
      ],
    },
  },
  boundary(
    ['workflows/**/*.ts'],
    ['activities', 'client', 'worker', 'cli'],
    'Workflow code may not import activities/, client/, worker/ or cli/: take types from shared/contract (proxyActivities<TeamActivities> etc.).',
  ),
  boundary(
    ['client/**/*.ts'],
    ['workflows', 'activities', 'worker'],
    'The client may not import workflows/, activities/ or worker/: start and call workflows through shared/contract.',
  ),
  boundary(
    ['shared/**/*.ts'],
    ['workflows', 'activities', 'client', 'worker', 'cli'],
    'shared/ is the bottom layer: it may not import workflows/, activities/, client/, worker/ or cli/.',
  ),
  boundary(['activities/**/*.ts'], ['workflows'], 'Activities may not import workflows/: they implement the interfaces of shared/contract.'),
  {
    // The wire contract is the bottom of the house: it imports only its own files and packages, and
    // the core (shared/team, shared/lead, ...) imports it, never the reverse. This also covers the
    // shared/ boundary above for these files, since this rule replaces that one here.
    files: ['shared/contract/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^\\.\\./',
              message: 'shared/contract/ imports nothing outside itself: declare the shape here, and let the core import it from the contract.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
);
