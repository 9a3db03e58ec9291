import { ToolExecutionError } from '../../shared/tool-errors';
import { toToolResult } from './mcp-content';

describe(toToolResult.name, () => {
  it('should give the model the text and keep JSON text as data', () => {
    expect(toToolResult({ content: [{ type: 'text', text: '{"temp":21}' }] })).toMatchObject({
      response: '{"temp":21}',
      data: { temp: 21 },
    });
  });

  it('should prefer structured content as data', () => {
    const result = toToolResult({ content: [{ type: 'text', text: 'Sunny' }], structuredContent: { sky: 'clear' } });

    expect(result).toMatchObject({ response: 'Sunny', data: { sky: 'clear' } });
  });

  it('should describe images in the response and keep the blocks as data', () => {
    const image = { type: 'image' as const, mimeType: 'image/png', data: 'aGVsbG8=' };

    const result = toToolResult({ content: [{ type: 'text', text: 'A picture:' }, image] });

    expect(result.response).toBe('A picture:\n[image image/png, 6 bytes]');
    expect(result.data).toEqual([{ type: 'text', text: 'A picture:' }, image]);
  });

  it('should turn isError into a tool failure carrying the text', () => {
    expect(() => toToolResult({ isError: true, content: [{ type: 'text', text: 'disk full' }] })).toThrow(
      new ToolExecutionError('disk full'),
    );
  });

  it('should name the resource of an embedded resource without text', () => {
    const result = toToolResult({
      content: [{ type: 'resource', resource: { uri: 'file:///a.bin', blob: 'AA==' } }],
    });

    expect(result.response).toBe('[resource file:///a.bin]');
  });
});
