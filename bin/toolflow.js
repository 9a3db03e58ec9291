#!/usr/bin/env node
// `toolflow` (the package's bin): runs the built CLI in dist/ (`npm run build`, or `npx tsc -b tsconfig.build.json`).
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const entry = join(__dirname, '..', 'dist', 'src', 'cli.js');
if (!existsSync(entry)) {
  process.stderr.write(`toolflow: ${entry} is missing; build first with npm run build\n`);
  process.exit(2);
}
require(entry);
