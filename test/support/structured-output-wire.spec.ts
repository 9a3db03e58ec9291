import type { RecordedRequest } from './recorded-request';
import {
  anthropicOutputFormatError,
  chatResponseFormatError,
  ollamaFormatError,
  responsesTextFormatError,
} from './structured-output-wire';

const recorded = (body: Record<string, unknown>): RecordedRequest => ({
  method: 'POST',
  path: '/',
  headers: {},
  body,
  rawBody: JSON.stringify(body),
});
const open = { type: 'object', properties: { city: { type: 'string' } } };
const closed = { ...open, required: ['city'], additionalProperties: false };

describe('structured-output fields as the real APIs check them', () => {
  it('should refuse strict mode for a schema strict mode cannot take, and take strict: false', () => {
    const chat = (strict: boolean, schema: Record<string, unknown>) =>
      chatResponseFormatError(
        recorded({ response_format: { type: 'json_schema', json_schema: { name: 'llm-1', schema, strict } } }),
      );

    expect(chat(true, open)).toBe(
      "Invalid schema for response_format 'llm-1': In context=(), 'additionalProperties' is required to be supplied and to be false.",
    );
    expect(chat(true, { ...open, additionalProperties: false })).toContain("Missing 'city'");
    expect(chat(true, closed)).toBeNull();
    expect(chat(false, open)).toBeNull();
    expect(
      responsesTextFormatError(recorded({ text: { format: { type: 'json_schema', name: 'a b', schema: closed } } })),
    ).toContain("Invalid 'text.format.name'");
  });

  it('should refuse an open object in an Anthropic schema and a format Ollama cannot read', () => {
    const anthropic = (schema: Record<string, unknown>) =>
      anthropicOutputFormatError(recorded({ output_config: { format: { type: 'json_schema', schema } } }));

    expect(anthropic(open)).toContain("'additionalProperties' must be explicitly set to false");
    expect(anthropic(closed)).toBeNull();
    expect(ollamaFormatError(recorded({ format: 42 }))).toBe('invalid JSON schema in format');
    expect(ollamaFormatError(recorded({ format: open }))).toBeNull();
  });
});
