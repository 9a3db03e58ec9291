import { open, realpath, stat } from 'node:fs/promises';
import { relative, resolve, sep } from 'node:path';
import { ToolExecutionError, ToolForbiddenError } from '../../shared/tool-errors';
import { defineBuiltin } from './builtin-tool';

export interface FileReadParams {
  path: string;
  offset?: number;
  max_bytes?: number;
  encoding?: 'utf8' | 'base64';
}

/** Bytes returned per call unless `max_bytes` asks for more (up to the configured file cap). */
const DEFAULT_READ_BYTES = 100_000;
const BINARY_SNIFF_BYTES = 8000;

const isInside = (root: string, target: string): boolean =>
  target === root || target.startsWith(root.endsWith(sep) ? root : root + sep);

// Checked structurally: fs errors fail `instanceof Error` across realms (jest sandboxes, workers).
const errnoCode = (error: unknown): string | undefined =>
  typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : undefined;

/** Resolves `requested` inside `root`, refusing anything that lands outside it, before or after symlinks. */
export async function resolveInsideRoot(root: string, requested: string): Promise<string> {
  if (requested.includes('\0')) throw new ToolForbiddenError('path must not contain NUL bytes');
  const lexicalRoot = resolve(root);
  const lexicalTarget = resolve(lexicalRoot, requested);
  if (!isInside(lexicalRoot, lexicalTarget)) {
    throw new ToolForbiddenError(
      `path ${JSON.stringify(requested)} is outside the readable folder; use a path relative to it`,
    );
  }
  const realRoot = await realpath(lexicalRoot);
  let realTarget: string;
  try {
    realTarget = await realpath(lexicalTarget);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') throw new ToolExecutionError(`file not found: ${JSON.stringify(requested)}`);
    throw new ToolExecutionError(`cannot access ${JSON.stringify(requested)} (${errnoCode(error) ?? 'unknown error'})`);
  }
  if (!isInside(realRoot, realTarget)) {
    throw new ToolForbiddenError(
      `path ${JSON.stringify(requested)} points outside the readable folder (through a symbolic link)`,
    );
  }
  return realTarget;
}

const looksBinary = (bytes: Buffer): boolean => {
  if (bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0)) return true;
  try {
    // stream mode tolerates a multi-byte character cut at the end of the slice
    new TextDecoder('utf-8', { fatal: true }).decode(skipContinuationBytes(bytes), { stream: true });
    return false;
  } catch {
    return true;
  }
};

/** A read starting mid-character begins with UTF-8 continuation bytes; those are not a sign of binary data. */
const skipContinuationBytes = (bytes: Buffer): Buffer => {
  let start = 0;
  while (start < Math.min(3, bytes.length) && (bytes[start] & 0xc0) === 0x80) start++;
  return bytes.subarray(start);
};

export const fileRead = defineBuiltin<FileReadParams>({
  name: 'file_read',
  description:
    'Reads a file from the readable folder configured for this server and returns its content. Paths are relative ' +
    'to that folder ("reports/2024.csv"). Text is returned as UTF-8; binary files must be read with encoding ' +
    '"base64". Large files are returned in chunks: pass the offset given in the previous answer to continue.',
  category: 'files',
  effect: 'read_only',
  parameters: {
    type: 'object',
    properties: {
      path: {
        type: 'string',
        minLength: 1,
        maxLength: 1024,
        description: 'File path relative to the readable folder, e.g. "notes/todo.md".',
      },
      offset: {
        type: 'integer',
        minimum: 0,
        default: 0,
        description: 'Byte offset to start reading from. Defaults to 0.',
      },
      max_bytes: {
        type: 'integer',
        minimum: 1,
        description: `Maximum number of bytes to return. Defaults to ${DEFAULT_READ_BYTES}.`,
      },
      encoding: {
        type: 'string',
        enum: ['utf8', 'base64'],
        default: 'utf8',
        description: '"utf8" for text (default), "base64" for binary files.',
      },
    },
    required: ['path'],
    additionalProperties: false,
  },
  unavailableReason: (env) => (env.files.root === null ? 'file_read is disabled: set FILE_READ_ROOT' : null),
  execute: async ({ path, offset = 0, max_bytes, encoding = 'utf8' }, context, env) => {
    const { root, maxBytes } = env.files;
    if (root === null) throw new ToolExecutionError('file_read is disabled: set FILE_READ_ROOT');
    const target = await resolveInsideRoot(root, path);
    const info = await stat(target);
    if (info.isDirectory()) throw new ToolExecutionError(`${JSON.stringify(path)} is a directory, not a file`);
    if (!info.isFile()) throw new ToolExecutionError(`${JSON.stringify(path)} is not a regular file`);
    if (info.size > maxBytes) {
      throw new ToolExecutionError(
        `${JSON.stringify(path)} is ${info.size} bytes, over the ${maxBytes}-byte limit for file_read`,
      );
    }
    if (offset > info.size)
      throw new ToolExecutionError(`offset ${offset} is past the end of the file (${info.size} bytes)`);

    const length = Math.min(max_bytes ?? DEFAULT_READ_BYTES, maxBytes, info.size - offset);
    const handle = await open(target, 'r');
    let bytes: Buffer;
    try {
      const opened = await handle.stat();
      // The file swapped under us between the checks and open (e.g. a symlink replaced): refuse.
      if (opened.ino !== info.ino || opened.dev !== info.dev)
        throw new ToolForbiddenError('file changed while opening it');
      context.signal.throwIfAborted();
      const buffer = Buffer.alloc(length);
      const { bytesRead } = await handle.read(buffer, 0, length, offset);
      bytes = buffer.subarray(0, bytesRead);
    } finally {
      await handle.close();
    }

    if (encoding === 'utf8' && looksBinary(bytes)) {
      throw new ToolExecutionError(`${JSON.stringify(path)} looks like a binary file; read it with encoding "base64"`);
    }
    const content = encoding === 'base64' ? bytes.toString('base64') : bytes.toString('utf8');
    const end = offset + bytes.length;
    const truncated = end < info.size;
    const relativePath = relative(await realpath(resolve(root)), target);
    const note = truncated
      ? `\n\n[showing bytes ${offset}-${end} of ${info.size}; call again with offset ${end} for more]`
      : '';
    return {
      response: content + note,
      data: { path: relativePath, size: info.size, offset, bytes_read: bytes.length, encoding, truncated, content },
      metadata: { bytes: bytes.length, truncated },
    };
  },
});
