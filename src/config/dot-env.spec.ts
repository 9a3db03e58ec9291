import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadDotEnv } from './dot-env';

describe(loadDotEnv.name, () => {
  it('should add the variables of the file and keep those already set', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'dotenv-')), '.env');
    writeFileSync(file, 'FROM_FILE="from file" # comment\nALREADY_SET=file\nEMPTY_BUT_SET=file\n');
    const env: NodeJS.ProcessEnv = { ALREADY_SET: 'real', EMPTY_BUT_SET: '' };

    loadDotEnv(file, env);

    expect(env).toEqual({ FROM_FILE: 'from file', ALREADY_SET: 'real', EMPTY_BUT_SET: '' });
  });

  it('should accept a missing file', () => {
    const env: NodeJS.ProcessEnv = {};
    loadDotEnv(join(tmpdir(), 'no-such-dir', '.env'), env);
    expect(env).toEqual({});
  });
});
