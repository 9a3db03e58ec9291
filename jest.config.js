/** Unit tests: specs beside the code (the console's pure helpers: test/console), no external services (SQLite or in-memory fakes only). */
module.exports = {
  rootDir: '.',
  testEnvironment: 'node',
  roots: ['<rootDir>/src', '<rootDir>/test/support', '<rootDir>/test/console'],
  testRegex: '\\.spec\\.ts$',
  transform: { '^.+\\.ts$': ['@swc/jest'] },
  moduleFileExtensions: ['ts', 'js', 'json', 'node'],
};
