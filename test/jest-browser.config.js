/** Browser tests: the built console (dist/console) in Debian's Chromium, against the real app and the scripted model. */
module.exports = {
  rootDir: '..',
  testEnvironment: 'node',
  roots: ['<rootDir>/test/browser'],
  testRegex: '\\.browser-spec\\.ts$',
  transform: { '^.+\\.ts$': ['@swc/jest'] },
  moduleFileExtensions: ['ts', 'js', 'json', 'node'],
  testTimeout: 60000,
};
