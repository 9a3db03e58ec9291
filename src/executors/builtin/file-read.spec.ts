import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ToolExecuteContext, type ToolExecuteResult } from '../../shared/tool-definition';
import { ToolExecutionError, ToolForbiddenError } from '../../shared/tool-errors';
import type { BuiltinEnvironment } from './builtin-tool';
import { fileRead, type FileReadParams } from './file-read';

describe('file_read tool', () => {
  let base: string;
  let root: string;

  const read = (
    params: FileReadParams,
    files: BuiltinEnvironment['files'] = { root, maxBytes: 1000 },
  ): Promise<ToolExecuteResult> =>
    fileRead.execute(
      params,
      { signal: new AbortController().signal } as ToolExecuteContext<FileReadParams>,
      { files, queryDatabase: null } as BuiltinEnvironment,
    );

  beforeAll(() => {
    base = mkdtempSync(join(tmpdir(), 'file-read-'));
    root = join(base, 'root');
    mkdirSync(join(root, 'notes'), { recursive: true });
    writeFileSync(join(root, 'notes', 'todo.md'), 'buy milk\n');
    writeFileSync(join(root, 'big.txt'), 'x'.repeat(2000));
    writeFileSync(join(root, 'image.bin'), Buffer.from([0x89, 0x50, 0x00, 0x01, 0xff]));
    writeFileSync(join(root, 'accents.txt'), 'héllo wörld');
    writeFileSync(join(base, 'secret.txt'), 'top secret');
    symlinkSync(join(base, 'secret.txt'), join(root, 'escape.txt'));
    symlinkSync(base, join(root, 'escape-dir'));
    symlinkSync(join(root, 'notes', 'todo.md'), join(root, 'inside-link.md'));
    mkdirSync(join(base, 'root-sibling'));
    writeFileSync(join(base, 'root-sibling', 'x.txt'), 'sibling');
  });

  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it('should read a file relative to the root', async () => {
    const result = await read({ path: 'notes/todo.md' });

    expect(result.response).toBe('buy milk\n');
    expect(result.data).toEqual({
      path: join('notes', 'todo.md'),
      size: 9,
      offset: 0,
      bytes_read: 9,
      encoding: 'utf8',
      truncated: false,
      content: 'buy milk\n',
    });
  });

  it('should accept an absolute path inside the root and symlinks that stay inside', async () => {
    expect((await read({ path: join(root, 'notes', 'todo.md') })).response).toBe('buy milk\n');
    expect((await read({ path: 'inside-link.md' })).response).toBe('buy milk\n');
  });

  it('should read a slice and tell how to continue', async () => {
    const result = await read({ path: 'notes/todo.md', offset: 4, max_bytes: 3 });

    expect(result.response).toBe('mil\n\n[showing bytes 4-7 of 9; call again with offset 7 for more]');
    expect(result.data).toMatchObject({ truncated: true, bytes_read: 3 });
  });

  it('should not mistake a cut multi-byte character for binary data', async () => {
    expect((await read({ path: 'accents.txt', offset: 2, max_bytes: 4 })).data).toMatchObject({ bytes_read: 4 });
  });

  it('should return binary files only as base64', async () => {
    await expect(read({ path: 'image.bin' })).rejects.toThrow(
      'looks like a binary file; read it with encoding "base64"',
    );
    expect((await read({ path: 'image.bin', encoding: 'base64' })).response).toBe('iVAAAf8=');
  });

  it.each([
    ['../secret.txt', 'is outside the readable folder'],
    ['notes/../../secret.txt', 'is outside the readable folder'],
    ['../root-sibling/x.txt', 'is outside the readable folder'],
    ['/etc/passwd', 'is outside the readable folder'],
    ['escape.txt', 'points outside the readable folder'],
    ['escape-dir/secret.txt', 'points outside the readable folder'],
    ['notes/todo.md\0.png', 'must not contain NUL bytes'],
  ])('should refuse %j as forbidden', async (path, message) => {
    const attempt = read({ path });

    await expect(attempt).rejects.toBeInstanceOf(ToolForbiddenError);
    await expect(attempt).rejects.toThrow(message);
  });

  it('should refuse a sibling folder that shares the root name as a prefix', async () => {
    await expect(read({ path: join(`${root}-sibling`, 'x.txt') })).rejects.toThrow('outside the readable folder');
  });

  it.each([
    ['notes', 'is a directory'],
    ['missing.txt', 'file not found: "missing.txt"'],
    ['big.txt', 'is 2000 bytes, over the 1000-byte limit'],
  ])('should refuse %j', async (path, message) => {
    const attempt = read({ path });

    await expect(attempt).rejects.toBeInstanceOf(ToolExecutionError);
    await expect(attempt).rejects.toThrow(message);
  });

  it('should refuse an offset past the end', async () => {
    await expect(read({ path: 'notes/todo.md', offset: 10 })).rejects.toThrow('past the end of the file');
  });

  it('should say how to enable it when no root is configured', async () => {
    await expect(read({ path: 'a' }, { root: null, maxBytes: 10 })).rejects.toThrow(
      'file_read is disabled: set FILE_READ_ROOT',
    );
  });
});
