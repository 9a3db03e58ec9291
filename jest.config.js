/** Unit tests: specs beside the code, no external services (SQLite or in-memory fakes only). */
module.exports = {
  rootDir: '.',
  testEnvironment: 'node',
  roots: ['<rootDir>/src', '<rootDir>/test/support'],
  testRegex: '\\.spec\\.ts$',
  transform: { '^.+\\.ts$': ['@swc/jest'] },
  moduleFileExtensions: ['ts', 'js', 'json', 'node'],
};
