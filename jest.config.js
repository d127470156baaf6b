/**
 * Unit tests need nothing; integration tests share one real stack started by the global setup.
 * The environment is jest's node one that prints the Temporal SDK's logs only for a failed test.
 */
module.exports = {
  transform: { '^.+\\.ts$': ['@swc/jest'] },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  testEnvironment: '<rootDir>/test/support/test-environment.ts',
  testTimeout: 60000,
  maxWorkers: 2,
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
};
