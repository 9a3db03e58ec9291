/** Unit tests: specs beside the code (the console's pure helpers: test/console), no external services (SQLite or in-memory fakes only). */
module.exports = {
  rootDir: '.',
  testEnvironment: 'node',
  roots: ['<rootDir>/src', '<rootDir>/test/support', '<rootDir>/test/console'],
  testRegex: '\\.spec\\.ts$',
  transform: { '^.+\\.ts$': ['@swc/jest'] },
  moduleFileExtensions: ['ts', 'js', 'json', 'node'],
  // A worker holds every earlier spec file's garbage until V8 needs the room (300 MB of heap, 450 MB RSS after ~70
  // files, though 40-70 MB live), and a process that large takes longer than Jest's 500 ms to exit on a busy
  // machine: "A worker process has failed to exit gracefully". One past this limit after a file is replaced.
  workerIdleMemoryLimit: '200MB',
};
