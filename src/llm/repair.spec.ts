import type { ToolCall } from '../shared/tool-types';
import { repairToolCalls, type RepairInput } from './repair';

describe(repairToolCalls.name, () => {
  const repair = (input: Partial<RepairInput>) => {
    let next = 0;
    return repairToolCalls({
      content: '',
      toolCalls: [],
      toolNames: ['get_weather', 'get_time'],
      nextId: () => `call_${next++}`,
      ...input,
    });
  };
  const call = (name: string, args = ''): ToolCall => ({ id: 'c1', name, arguments: args });

  it('should leave clean calls and text untouched', () => {
    const result = repair({ content: 'Sure.', toolCalls: [call('get_weather', '{"city":"x"}')] });

    expect(result).toEqual({ content: 'Sure.', toolCalls: [call('get_weather', '{"city":"x"}')], repairs: [] });
  });

  it('should split quoted key=value arguments off a name', () => {
    const result = repair({ toolCalls: [call('get_weather" city="北京', '')] });

    expect(result.toolCalls).toEqual([{ ...call('get_weather', '{"city":"北京"}'), repair: { kind: 'tool_name' } }]);
    expect(result.repairs).toEqual(['tool call c1: name "get_weather\\" city=\\"北京" became "get_weather"']);
  });

  it('should split a JSON object off a name', () => {
    const result = repair({ toolCalls: [call('get_weather {"city":"x"}', '{}')] });

    expect(result.toolCalls).toEqual([{ ...call('get_weather', '{"city":"x"}'), repair: { kind: 'tool_name' } }]);
    expect(result.repairs).toHaveLength(1);
  });

  it('should keep the sent arguments and only fill gaps from the name', () => {
    const result = repair({ toolCalls: [call('get_weather city="a" days=3', '{"city":"b"}')] });

    expect(JSON.parse(result.toolCalls[0].arguments)).toEqual({ city: 'b', days: 3 });
  });

  it('should strip a functions. prefix and stray quotes from a name', () => {
    const result = repair({ toolCalls: [call('functions.get_time', '{}'), { ...call('"get_weather"'), id: 'c2' }] });

    expect(result.toolCalls.map((repaired) => repaired.name)).toEqual(['get_time', 'get_weather']);
    expect(result.repairs).toHaveLength(2);
  });

  it('should leave a name alone when no offered tool hides in it', () => {
    const result = repair({ toolCalls: [call('delete_all city="x"', '{}')] });

    expect(result.toolCalls).toEqual([call('delete_all city="x"', '{}')]);
    expect(result.repairs).toEqual([]);
  });

  it('should recover Hermes-style <tool_call> markup and remove it from the content', () => {
    const result = repair({
      content: 'Let me check.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
    });

    expect(result.content).toBe('Let me check.');
    expect(result.toolCalls).toEqual([
      { id: 'call_0', name: 'get_weather', arguments: '{"city":"Paris"}', repair: { kind: 'tool_call_tag' } },
    ]);
    expect(result.repairs).toEqual(['tool call call_0: "get_weather" recovered from a tool_call tag in the text']);
  });

  it('should keep raw arguments of a broken or unclosed <tool_call> for the argument parser', () => {
    const result = repair({ content: '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris",}}' });

    expect(result.toolCalls).toEqual([
      { id: 'call_0', name: 'get_weather', arguments: '{"city": "Paris",}', repair: { kind: 'tool_call_tag' } },
    ]);
    expect(result.content).toBe('');
  });

  it('should recover several tagged calls, including string arguments and Llama function tags', () => {
    const result = repair({
      content:
        '<tool_call>{"name":"get_time","arguments":"{\\"tz\\":\\"UTC\\"}"}</tool_call>' +
        '<function=get_weather>{"city":"Rome"}</function>',
    });

    expect(result.toolCalls).toEqual([
      { id: 'call_0', name: 'get_time', arguments: '{"tz":"UTC"}', repair: { kind: 'tool_call_tag' } },
      { id: 'call_1', name: 'get_weather', arguments: '{"city":"Rome"}', repair: { kind: 'function_tag' } },
    ]);
  });

  it('should leave markup for a tool that was not offered in the content', () => {
    const content = '<tool_call>{"name": "rm_rf", "arguments": {}}</tool_call>';

    expect(repair({ content })).toEqual({ content, toolCalls: [], repairs: [] });
  });

  it('should recover python-style calls on their own line', () => {
    const result = repair({ content: 'Calling now:\nget_weather(city="北京", days=3, metric=True)\nget_time()' });

    expect(result.content).toBe('Calling now:');
    expect(result.toolCalls).toEqual([
      {
        id: 'call_0',
        name: 'get_weather',
        arguments: '{"city":"北京","days":3,"metric":true}',
        repair: { kind: 'python_call' },
      },
      { id: 'call_1', name: 'get_time', arguments: '{}', repair: { kind: 'python_call' } },
    ]);
    expect(result.repairs[0]).toContain('python call');
  });

  it('should recover a bracketed list of python-style calls', () => {
    const result = repair({ content: '[get_weather(city=\'Oslo\'), get_time(tz="CET")]' });

    expect(result.toolCalls.map((recovered) => recovered.name)).toEqual(['get_weather', 'get_time']);
    expect(result.content).toBe('');
  });

  it('should not take a python-style mention inside a sentence or of an unknown tool for a call', () => {
    const content = 'You could use get_weather(city="x") later.\nsend_mail(to="a")';

    expect(repair({ content })).toEqual({ content, toolCalls: [], repairs: [] });
  });

  it('should not look for calls in the text when the provider sent structured calls', () => {
    const content = '<tool_call>{"name": "get_time", "arguments": {}}</tool_call>';
    const result = repair({ content, toolCalls: [call('get_weather', '{}')] });

    expect(result.content).toBe(content);
    expect(result.toolCalls).toHaveLength(1);
  });

  it('should recover nothing when the request offered no tools', () => {
    const content = 'get_weather(city="x")';

    expect(repair({ content, toolNames: [] }).toolCalls).toEqual([]);
  });
  describe('whole answers that are only tool calls', () => {
    const KINDS: Record<string, string> = {
      'JSON answer': 'json_answer',
      'json code fence': 'json_fence',
      '[TOOL_CALLS] list': 'tool_calls_list',
      python_tag: 'python_tag',
    };
    const recovered = (content: string) => {
      const result = repair({ content });
      return {
        ...result,
        toolCalls: result.toolCalls.map(({ name, arguments: args }): [string, unknown] => [name, JSON.parse(args)]),
      };
    };

    it.each([
      ['a bare JSON object with arguments', '{"name": "get_weather", "arguments": {"city": "Paris"}}', 'JSON answer'],
      ['a tool/parameters object', '{"tool": "get_weather", "parameters": {"city": "Paris"}}', 'JSON answer'],
      ['a json code fence', '```json\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n```', 'json code fence'],
      ['a plain code fence', '```\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n```', 'json code fence'],
      [
        'an OpenAI-shaped object',
        '{"type":"function","function":{"name":"get_weather","arguments":"{\\"city\\":\\"Paris\\"}"}}',
        'JSON answer',
      ],
      [
        'Mistral [TOOL_CALLS]',
        '[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Paris"}}]',
        '[TOOL_CALLS] list',
      ],
      [
        'Llama <|python_tag|> JSON',
        '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris"}}<|eom_id|>',
        'python_tag',
      ],
      ['Llama <|python_tag|> python call', '<|python_tag|>get_weather(city="Paris")', 'python_tag'],
    ])('should recover %s', (_case, content, source) => {
      const result = recovered(content);

      expect(result.toolCalls).toEqual([['get_weather', { city: 'Paris' }]]);
      expect(result.content).toBe('');
      expect(result.repairs).toEqual([`tool call call_0: "get_weather" recovered from a ${source} in the text`]);
      expect(repair({ content }).toolCalls[0].repair?.kind).toBe(KINDS[source]);
    });

    it('should recover a bare JSON array of calls and Llama calls joined by semicolons', () => {
      expect(
        recovered('[{"name": "get_weather", "arguments": {"city": "Rome"}}, {"name": "get_time"}]').toolCalls,
      ).toEqual([
        ['get_weather', { city: 'Rome' }],
        ['get_time', {}],
      ]);
      expect(
        recovered(
          '<|python_tag|>{"name": "get_time", "parameters": {"tz": "UTC"}}; {"name": "get_time", "parameters": {}}',
        ).toolCalls,
      ).toEqual([
        ['get_time', { tz: 'UTC' }],
        ['get_time', {}],
      ]);
    });

    it('should recover Hermes/Qwen <tool_call> markup', () => {
      expect(
        recovered('<tool_call>\n{"name": "get_time", "arguments": {"tz": "UTC"}}\n</tool_call>').toolCalls,
      ).toEqual([['get_time', { tz: 'UTC' }]]);
    });

    it.each([
      ['prose that shows a JSON call', 'Call it like this: {"name": "get_weather", "arguments": {"city": "Paris"}}'],
      ['prose around a json fence', 'Example:\n```json\n{"name": "get_weather", "arguments": {}}\n```\nThat is all.'],
      ['a JSON answer that is data', '{"name": "get_weather", "description": "a tool", "arguments": {}}'],
      ['a call of an unknown tool', '{"name": "delete_everything", "arguments": {}}'],
      ['an array with one unknown call', '[{"name": "get_time"}, {"name": "rm_rf"}]'],
      ['a JSON answer without a name', '{"city": "Paris", "temp_c": 21}'],
      ['broken JSON', '{"name": "get_weather", "arguments": {'],
    ])('should keep %s as the answer', (_case, content) => {
      expect(repair({ content })).toEqual({ content, toolCalls: [], repairs: [] });
    });
  });
});
