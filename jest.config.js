/**
 * Unit tests need nothing; integration tests share one real stack started by the global setup.
 * The environment is jest's node one that prints the Temporal SDK's logs only for a failed test.
 * A worker past 1 GB after a file is replaced: workers grew to 2-3 GB over a whole run.
 *
 * Workers: more than the 2 cores, because a test file spends much of its time waiting (timers,
 * settle windows, the stack's servers, child processes) and another file runs meanwhile. How many
 * depends on what else the machine is doing, looked at for 0.7 s as the run starts (./test/
 * support/workers.js): four on an idle machine, three when other work already takes its cores
 * (a second suite beside: four each would only add contention). `npm test -- --maxWorkers=N` decides.
 */
const { workersForThisMachine } = require('./test/support/workers');

module.exports = async () => ({
  transform: { '^.+\\.ts$': ['@swc/jest'] },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  testSequencer: '<rootDir>/test/support/sequencer.js',
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  testEnvironment: '<rootDir>/test/support/test-environment.ts',
  testTimeout: 60000,
  maxWorkers: await workersForThisMachine(),
  workerIdleMemoryLimit: '1GB',
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
});
