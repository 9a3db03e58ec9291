import { checkParametersSchema } from '../json-schema/check-parameters-schema';
import { effectOf, importDescription, importParameters, mcpToolName } from './mcp-tool-import';

describe(importParameters.name, () => {
  it('should keep a schema the save check accepts as it is', () => {
    const inputSchema = {
      type: 'object' as const,
      properties: { path: { type: 'string', description: 'File path' } },
      required: ['path'],
      $schema: 'http://json-schema.org/draft-07/schema#',
    };

    expect(importParameters(inputSchema)).toEqual({ ok: true, parameters: inputSchema, notes: [] });
  });

  it('should drop what the save check refuses, note it, and pass the check afterwards', () => {
    const result = importParameters({
      type: 'object',
      properties: {
        name: { type: 'string', pattern: '(a+)+\\1' },
        size: { type: 'integer', minimum: 'zero' },
      },
    });

    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.parameters).toEqual({
      type: 'object',
      properties: { name: { type: 'string' }, size: { type: 'integer' } },
    });
    expect(result.notes).toEqual([
      expect.stringContaining('removed /properties/size/minimum'),
      expect.stringContaining('removed /properties/name/pattern'),
    ]);
    expect(checkParametersSchema(result.parameters).problems).toEqual([]);
  });

  it('should drop a $schema of a draft the service does not support', () => {
    const result = importParameters({
      type: 'object',
      $schema: 'https://json-schema.org/draft/2019-09/schema',
      properties: { q: { type: 'string' } },
    });

    expect(result).toMatchObject({ ok: true, parameters: { type: 'object', properties: { q: { type: 'string' } } } });
  });

  it('should refuse a schema it cannot repair, with the reason', () => {
    const result = importParameters({ type: 'object', properties: { a: { $ref: '#/$defs/missing' } } });

    expect(result).toEqual({ ok: false, reason: expect.stringContaining('missing') as string });
  });

  it('should not change the schema it was given', () => {
    const inputSchema = { type: 'object' as const, properties: { a: { type: 'string', pattern: '(?=x)' } } };

    importParameters(inputSchema);

    expect(inputSchema.properties.a.pattern).toBe('(?=x)');
  });
});

describe(effectOf.name, () => {
  it.each([
    [{ readOnlyHint: true, destructiveHint: true }, 'read_only'],
    [{ destructiveHint: true, idempotentHint: true }, 'dangerous'],
    [{ idempotentHint: true }, 'idempotent'],
    [{ openWorldHint: true }, 'mutating'],
    [undefined, 'mutating'],
  ])('should map %j to %s', (annotations, effect) => {
    expect(effectOf(annotations)).toBe(effect);
  });
});

describe(mcpToolName.name, () => {
  it('should join server and tool with __ and sanitise the result', () => {
    expect(mcpToolName('files', 'read.file')).toBe('files__read_file');
  });
});

describe(importDescription.name, () => {
  it('should fall back to the title, then to a generated line, and append the repair notes', () => {
    expect(importDescription('s', { name: 't', title: 'Nice title', inputSchema: { type: 'object' } }, [])).toBe(
      'Nice title',
    );
    expect(importDescription('s', { name: 't', inputSchema: { type: 'object' } }, ['removed /x'])).toBe(
      't (MCP server s)\n\nSchema adjusted on import: removed /x.',
    );
  });
});
