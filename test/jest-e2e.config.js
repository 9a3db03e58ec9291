/** e2e tests: the real app over HTTP against DATABASE_URL (MariaDB in CI) or a throwaway SQLite file. */
module.exports = {
  rootDir: '..',
  testEnvironment: 'node',
  roots: ['<rootDir>/test/e2e'],
  testRegex: '\\.e2e-spec\\.ts$',
  transform: { '^.+\\.ts$': ['@swc/jest'] },
  moduleFileExtensions: ['ts', 'js', 'json', 'node'],
  // Tests and hooks start the real app (migrations included), which takes well over 10 s on a loaded machine.
  testTimeout: 60000,
};
