import { findReferences, MissingReferenceError, renderText, resolveReferences, type Scope } from './references';

const scope: Scope = {
  inputs: { city: 'Berlin', days: 3 },
  'llm-1': { output: 'sunny', usage: { total_tokens: 12 } },
  'tool-1': { data: { items: [{ name: 'first' }, { name: 'second' }] }, status: 'success' },
};

describe(resolveReferences.name, () => {
  it('should keep the type of a value that is one whole reference', () => {
    expect(resolveReferences('{{inputs.days}}', scope)).toBe(3);
    expect(resolveReferences('{{ llm-1.usage }}', scope)).toEqual({ total_tokens: 12 });
  });

  it('should follow dotted paths and array indexes', () => {
    expect(resolveReferences('{{tool-1.data.items[1].name}}', scope)).toBe('second');
  });

  it('should render references inside text, objects as JSON', () => {
    expect(resolveReferences('Weather in {{inputs.city}} for {{inputs.days}} days', scope)).toBe(
      'Weather in Berlin for 3 days',
    );
    expect(resolveReferences('usage: {{llm-1.usage}}', scope)).toBe('usage: {"total_tokens":12}');
  });

  it('should fail a reference to a missing value with the reference and what was there, never empty text', () => {
    expect(() => resolveReferences('in {{inputs.country}}', scope)).toThrow(
      new MissingReferenceError('{{inputs.country}}', 'the run was given no input "country"'),
    );
    expect(() => resolveReferences('{{inputs.city.name}}', scope)).toThrow(
      /inputs\.city is "Berlin", which has no "name"/,
    );
    expect(() => resolveReferences('in {{tool-1.data.missing.deeper}}!', scope)).toThrow(
      /^\{\{tool-1\.data\.missing\.deeper\}\} has no value: tool-1\.data is \{"items":.*\}, which has no "missing"; give a default/,
    );
    expect(() => resolveReferences('{{llm-1.output.sum}}', scope)).toThrow(
      /llm-1\.output is "sunny", which has no "sum"/,
    );
    expect(() => resolveReferences('in {{other.output}}', scope)).toThrow(/node "other" did not run/);
    expect(() => resolveReferences('{{tool-1.data.constructor}}', scope)).toThrow(MissingReferenceError);
  });

  it('should leave out a whole value of a node whose branch was not taken, unless it gives a default', () => {
    expect(resolveReferences({ hot: '{{other.output}}' }, scope)).toEqual({ hot: undefined });
    expect(resolveReferences('{{other.output ?? "none"}}', scope)).toBe('none');
  });

  it('should leave out a whole value of an optional run input that was not given, unless it gives a default', () => {
    expect(resolveReferences({ messages: '{{inputs.messages}}' }, scope)).toEqual({ messages: undefined });
    expect(resolveReferences('{{inputs.messages ?? "none"}}', scope)).toBe('none');
  });

  it('should read null as a value and the length of text and lists', () => {
    expect(resolveReferences('{{tool-1.note}}', { 'tool-1': { note: null } })).toBeNull();
    expect(renderText('[{{tool-1.note}}]', { 'tool-1': { note: null } })).toBe('[]');
    expect(resolveReferences('{{tool-1.data.items.length}}', scope)).toBe(2);
    expect(resolveReferences('{{llm-1.output.length}}', scope)).toBe(5);
  });

  it('should resolve strings anywhere in objects and arrays and keep other values', () => {
    expect(
      resolveReferences({ city: '{{inputs.city}}', list: ['{{inputs.days}}', 7, null], flag: true }, scope),
    ).toEqual({ city: 'Berlin', list: [3, 7, null], flag: true });
  });

  it('should leave text without references unchanged', () => {
    expect(resolveReferences('no {braces} here {{ }}', scope)).toBe('no {braces} here {{ }}');
  });
});

describe(renderText.name, () => {
  it('should turn any resolved value into text', () => {
    expect(renderText('{{inputs.days}}', scope)).toBe('3');
    expect(renderText({ a: '{{inputs.city}}' }, scope)).toBe('{"a":"Berlin"}');
  });
});

describe(findReferences.name, () => {
  it('should list every reference with its root and path', () => {
    expect(findReferences({ a: ['x {{inputs.city}}', { b: '{{tool-1.data.items[0].name}}' }], n: 1 })).toEqual([
      { root: 'inputs', path: ['city'], text: '{{inputs.city}}', pointer: '/a/0' },
      {
        root: 'tool-1',
        path: ['data', 'items', '0', 'name'],
        text: '{{tool-1.data.items[0].name}}',
        pointer: '/a/1/b',
      },
    ]);
  });

  it('should read the default after ?? as a JSON literal', () => {
    expect(findReferences('{{tool-1.data.note ?? "none"}} and {{inputs.days??3}}')).toEqual([
      expect.objectContaining({ root: 'tool-1', path: ['data', 'note'], fallback: { value: 'none' } }),
      expect.objectContaining({ root: 'inputs', path: ['days'], fallback: { value: 3 } }),
    ]);
  });
});

describe('reference defaults', () => {
  it('should use the default only where the value is missing', () => {
    expect(resolveReferences('{{inputs.country ?? "Germany"}}', scope)).toBe('Germany');
    expect(resolveReferences('{{inputs.city ?? "Germany"}}', scope)).toBe('Berlin');
    expect(resolveReferences('{{tool-1.data.missing ?? 0}}', scope)).toBe(0);
    expect(resolveReferences('{{tool-1.data.missing ?? null}}', scope)).toBeNull();
    expect(renderText('in {{inputs.country ?? "Germany"}}!', scope)).toBe('in Germany!');
  });
});
