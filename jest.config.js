/**
 * Unit tests need nothing; integration tests share one real stack started by the global setup.
 * The environment is jest's node one that prints the Temporal SDK's logs only for a failed test.
 * Three workers on these 2-core machines: a test file spends much of its time waiting (timers,
 * settle windows, the stack's servers, child processes), and a third file runs meanwhile
 * (measured: ~30% less wall time than two; on 2026-11-30 the cores were ~90-95% busy with three,
 * and four gave ~10% less wall time at 98%, not taken: a second suite may run beside). A worker past 1 GB after a file is
 * replaced: workers grew to 2-3 GB over a whole run, three of them on a machine that others share.
 */
module.exports = {
  transform: { '^.+\\.ts$': ['@swc/jest'] },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  testSequencer: '<rootDir>/test/support/sequencer.js',
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  testEnvironment: '<rootDir>/test/support/test-environment.ts',
  testTimeout: 60000,
  maxWorkers: 3,
  workerIdleMemoryLimit: '1GB',
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
};
