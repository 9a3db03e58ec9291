/** e2e tests: the real app over HTTP against DATABASE_URL (MariaDB in CI) or a throwaway SQLite file. */
module.exports = {
  rootDir: '..',
  testEnvironment: 'node',
  roots: ['<rootDir>/test/e2e'],
  testRegex: '\\.e2e-spec\\.ts$',
  transform: { '^.+\\.ts$': ['@swc/jest'] },
  moduleFileExtensions: ['ts', 'js', 'json', 'node'],
  // Tests and hooks start the real app (migrations included): well over 10 s on a loaded machine, and over 60 s
  // was seen once with a load average of 21 on 2 cores. A passing test never waits for this bound.
  testTimeout: 120000,
};
