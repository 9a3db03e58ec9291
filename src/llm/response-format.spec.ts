import { toAnthropicBody } from './anthropic-messages';
import { toOllamaBody } from './ollama-chat';
import { toChatCompletionBody } from './openai-chat.provider';
import { toResponsesBody } from './openai-responses';
import type { ChatRequest, ResponseFormat } from './provider';

const strictSchema = {
  type: 'object',
  properties: { city: { type: 'string' }, celsius: { type: 'number' } },
  required: ['city', 'celsius'],
  additionalProperties: false,
};
const looseSchema = {
  type: 'object',
  properties: { city: { type: 'string', minLength: 2 }, tags: { type: 'array', items: { type: 'object' } } },
  required: ['city'],
};

const request = (responseFormat?: ResponseFormat): ChatRequest => ({
  model: 'test-model',
  messages: [{ role: 'user', content: 'Weather in Paris as JSON?' }],
  ...(responseFormat === undefined ? {} : { responseFormat }),
});

describe('response format on the wire', () => {
  const strict: ResponseFormat = { name: 'llm-1', schema: strictSchema, strict: true };
  const loose: ResponseFormat = { name: 'llm-1', schema: looseSchema, strict: false };

  it('should send Chat Completions response_format json_schema with name, schema and strict', () => {
    expect(toChatCompletionBody(request(strict)).response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'llm-1', schema: strictSchema, strict: true },
    });
    expect(toChatCompletionBody(request(loose)).response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'llm-1', schema: looseSchema, strict: false },
    });
    expect(toChatCompletionBody(request()).response_format).toBeUndefined();
  });

  it('should send Responses text.format json_schema with name, schema and strict', () => {
    expect(toResponsesBody(request(strict)).text).toEqual({
      format: { type: 'json_schema', name: 'llm-1', schema: strictSchema, strict: true },
    });
    expect(toResponsesBody(request(loose)).text).toEqual({
      format: { type: 'json_schema', name: 'llm-1', schema: looseSchema, strict: false },
    });
    expect(toResponsesBody(request())).not.toHaveProperty('text');
  });

  it('should send Anthropic output_config.format with the schema closed and unenforced constraints described', () => {
    expect(toAnthropicBody(request(strict)).output_config).toEqual({
      format: { type: 'json_schema', schema: strictSchema },
    });
    expect(toAnthropicBody(request(loose)).output_config).toEqual({
      format: {
        type: 'json_schema',
        schema: {
          type: 'object',
          properties: {
            city: { type: 'string', description: '{minLength: 2}' },
            tags: { type: 'array', items: { type: 'object', properties: {}, additionalProperties: false } },
          },
          required: ['city'],
          additionalProperties: false,
        },
      },
    });
    expect(toAnthropicBody(request())).not.toHaveProperty('output_config');
  });

  it('should send the Anthropic schema as written when the SDK transform cannot read it', () => {
    const untyped = { properties: { city: { type: 'string' } } };

    expect(toAnthropicBody(request({ name: 'x', schema: untyped, strict: false })).output_config).toEqual({
      format: { type: 'json_schema', schema: untyped },
    });
  });

  it('should send Ollama format as the schema itself', () => {
    expect(toOllamaBody(request(loose)).format).toEqual(looseSchema);
    expect(toOllamaBody(request())).not.toHaveProperty('format');
  });

  it('should not change the caller’s schema', () => {
    const before = structuredClone(looseSchema);

    toAnthropicBody(request(loose));

    expect(looseSchema).toEqual(before);
  });
});
