// Lint rules. The important one: workflow code runs in Temporal's deterministic sandbox,
// so it may import only @temporalio/workflow and types, never Node builtins or I/O packages.
const js = require('@eslint/js');
const tseslint = require('typescript-eslint');
const globals = require('globals');

const sandboxForbidden = [
  'node:*', 'fs', 'path', 'crypto', 'os', 'http', 'https', 'net', 'child_process', 'stream', 'util',
  'mongodb', 'nodemailer', 'handlebars', 'mjml', 'koa', '@koa/*', 'smtp-server', 'pino', 'mailparser',
  '@temporalio/client', '@temporalio/worker', '@temporalio/activity', '@temporalio/testing',
  '../activities/*', '../infra/*', '../api/*',
  // core/ is out of bounds but for the deferral policy (core/sending/deferral.ts): pure, no I/O.
  '../core/*', '!../core/sending', '../core/sending/*', '!../core/sending/deferral',
  '!../adapters/temporal/contracts',
];

module.exports = tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.tools/**', '.herald-data/**', 'coverage/**', '.scratch/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-require-imports': 'off',
    },
  },
  {
    // The console runs in the browser: its globals, not Node's.
    files: ['console/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    // Configuration is read once, at the entry point (composition/config.ts's loadConfig) and passed
    // down: nothing below an entry point reads the environment.
    files: ['api/**/*.ts', 'smtp/**/*.ts', 'activities/**/*.ts', 'core/**/*.ts', 'adapters/**/*.ts', 'composition/**/*.ts'],
    ignores: ['api/main.ts', 'smtp/main.ts', 'composition/config.ts'],
    rules: {
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'Read configuration at the entry point (loadConfig) and pass it down.' }],
    },
  },
  {
    // Layers point one way: the edges (api/, smtp/, activities/, the entry points) → core/ → adapters/.
    // core/ never reaches up to an edge, the embedded stack or the composition root.
    files: ['core/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', {
        patterns: [{
          group: ['**/infra/**', '**/workflows/**', '**/activities/**', '**/api/**', '**/smtp/**', '**/cli/**', '**/composition/**', '**/bench/**'],
          message: 'core/ is the domain: it imports adapters/, never the edges, infra/ or the composition root.',
        }],
      }],
    },
  },
  {
    // Adapters know nothing of the domain's rules or of the edges above them.
    files: ['adapters/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', {
        patterns: [{
          group: ['**/core/**', '**/infra/**', '**/workflows/**', '**/activities/**', '**/api/**', '**/smtp/**', '**/cli/**', '**/composition/**', '**/bench/**'],
          message: 'adapters/ reach the store, Temporal, the relay and metrics; they import neither the domain nor the edges.',
          allowTypeImports: false,
        }],
      }],
    },
  },
  {
    files: ['workflows/**/*.ts'],
    languageOptions: { globals: {} },
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', {
        patterns: [{ group: sandboxForbidden, message: 'Workflow code runs in the Temporal sandbox: no Node builtins or I/O (use an activity).', allowTypeImports: true }],
      }],
      'no-restricted-globals': ['error', 'process', 'require', 'Buffer', 'setImmediate', '__dirname'],
    },
  },
);
