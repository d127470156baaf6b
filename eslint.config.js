// Lint rules. The important one: workflow code runs in Temporal's deterministic sandbox,
// so it may import only @temporalio/workflow and types, never Node builtins or I/O packages.
const js = require('@eslint/js');
const tseslint = require('typescript-eslint');
const globals = require('globals');

const sandboxForbidden = [
  'node:*', 'fs', 'path', 'crypto', 'os', 'http', 'https', 'net', 'child_process', 'stream', 'util',
  'mongodb', 'nodemailer', 'handlebars', 'mjml', 'koa', '@koa/*', 'smtp-server', 'pino', 'mailparser',
  '@temporalio/client', '@temporalio/worker', '@temporalio/activity', '@temporalio/testing',
  '../core/*', '!../core/workflow-contracts', '../activities/*', '../infra/*', '../api/*',
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
    // Layers point one way: core/ is used by api/, smtp/, activities/ and the entry points, never the reverse.
    files: ['core/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', {
        patterns: [{ group: ['../infra/*', '../workflows/*', '../activities/*', '../api/*', '../smtp/*', '../cli/*'], message: 'core/ imports neither infra/ nor workflows/ (nor the interfaces above it).' }],
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
