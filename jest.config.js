/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.tsx?$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }] },
  // The package's own entry points as a user imports them (examples/pulumi uses `tmkit/pulumi`).
  moduleNameMapper: { '^tmkit/(pulumi|cdktf|cdktn|constructs|client|core)$': '<rootDir>/src/$1/index.ts' },
  testTimeout: 60000,
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
};
