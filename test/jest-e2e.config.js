/** e2e tests: the real app over HTTP against DATABASE_URL (MariaDB in CI) or a throwaway SQLite file. */
module.exports = {
  rootDir: '..',
  testEnvironment: 'node',
  roots: ['<rootDir>/test/e2e'],
  testRegex: '\\.e2e-spec\\.ts$',
  transform: { '^.+\\.ts$': ['@swc/jest'] },
  moduleFileExtensions: ['ts', 'js', 'json', 'node'],
  testTimeout: 30000,
};
