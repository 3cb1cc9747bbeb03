/** One jest run for the whole workspace: unit tests of every package, the API's medium tier (services and repositories on a real database, no HTTP) and its e2e suites. */
const swcConfig = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
    target: 'es2022',
    keepClassNames: true,
  },
  module: { type: 'commonjs', ignoreDynamic: true },
  sourceMaps: 'inline',
};

module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/apps', '<rootDir>/packages', '<rootDir>/tools'],
  testMatch: ['**/*.spec.ts', '**/*.e2e-spec.ts', '**/*.medium-spec.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  modulePathIgnorePatterns: ['<rootDir>/apps/api/dist', '<rootDir>/packages/[^/]+/dist'],
  transform: { '^.+\\.ts$': ['@swc/jest', swcConfig] },
  moduleNameMapper: {
    '^@ledgerlens/(statements|underwriting|sdk|webhooks)$': '<rootDir>/packages/$1/src/index.ts',
    // packages/sdk is also built as ESM, so its relative imports name the emitted `.js` file
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  globalSetup: '<rootDir>/apps/api/test/global-setup.ts',
  globalTeardown: '<rootDir>/apps/api/test/global-teardown.ts',
  maxWorkers: 2,
  testTimeout: 60000,
};
