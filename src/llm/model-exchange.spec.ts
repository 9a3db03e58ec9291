import { redactJsonText } from '../shared/json-text-redactor';
import type { ChatMessage } from '../shared/chat-types';
import type { FunctionTool } from '../shared/tool-types';
import { maskSecrets, SECRET_MASK } from '../shared/secrets';
import { maskRequest, secretArgumentsOf } from './model-exchange';
import type { ChatRequest } from './provider';

/** The request masked as a whole, in one JSON copy: what maskRequest must keep returning. */
const maskedAsAWhole = (request: ChatRequest): unknown => {
  const plain = JSON.parse(JSON.stringify(request)) as ChatRequest;
  const secretArguments = secretArgumentsOf(request);
  return maskSecrets({
    ...plain,
    messages: plain.messages.map((message) =>
      message.role === 'assistant' && message.tool_calls !== undefined
        ? {
            ...message,
            tool_calls: message.tool_calls.map((call) => ({
              ...call,
              function: { ...call.function, arguments: redactJsonText(call.function.arguments, secretArguments) },
            })),
          }
        : message,
    ),
  });
};

const loginTool = (secretField: string): FunctionTool => ({
  type: 'function',
  function: {
    name: 'login',
    description: 'Logs in at https://example.com/?token=abcd1234',
    parameters: {
      type: 'object',
      properties: { user: { type: 'string' }, [secretField]: { type: 'string', format: 'password' } },
    },
  },
});

const history: ChatMessage[] = [
  { role: 'system', content: 'Use https://api.example.com/v1?api_key=sk-12345678 for lookups.' },
  { role: 'user', content: 'Log me in.' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [
      {
        id: 'call_0',
        type: 'function',
        function: { name: 'login', arguments: '{"user":"ann","favourite":"hunter22","pin":"1234"}' },
      },
    ],
  },
  { role: 'tool', tool_call_id: 'call_0', content: '{"session":"s-998877","ok":true}' },
];

const requestWith = (messages: ChatMessage[], tools: FunctionTool[]): ChatRequest => ({
  model: 'test-model',
  messages,
  tools,
  temperature: undefined,
  toolChoice: 'auto',
});

describe(maskRequest.name, () => {
  it('should mask a request as masking it whole did, keys in the same order', () => {
    const request = requestWith(history, [loginTool('favourite')]);

    const sut = maskRequest(request);

    expect(sut).toEqual(maskedAsAWhole(request));
    expect(JSON.stringify(sut)).toBe(JSON.stringify(maskedAsAWhole(request)));
    expect(JSON.stringify(sut)).not.toContain('hunter22');
    expect(JSON.stringify(sut)).toContain(SECRET_MASK);
  });

  it('should mask each later request of a growing conversation as masking it whole does', () => {
    const tools = [loginTool('favourite')];
    const messages: ChatMessage[] = [];

    for (const message of history) {
      messages.push(message);
      const request = requestWith([...messages], tools);

      expect(JSON.stringify(maskRequest(request))).toBe(JSON.stringify(maskedAsAWhole(request)));
    }
  });

  it('should mask the same message again when the tools declare other secret arguments', () => {
    maskRequest(requestWith(history, [loginTool('favourite')]));
    const request = requestWith(history, [loginTool('pin')]);

    const sut = JSON.stringify(maskRequest(request));

    expect(sut).toBe(JSON.stringify(maskedAsAWhole(request)));
    expect(sut).toContain('hunter22');
    expect(sut).not.toContain('"pin":"1234"');
  });

  it('should mask a request without tools, leaving no tools key', () => {
    const request: ChatRequest = { model: 'test-model', messages: history };

    const sut = maskRequest(request);

    expect(JSON.stringify(sut)).toBe(JSON.stringify(maskedAsAWhole(request)));
    expect(Object.keys(sut)).toEqual(['model', 'messages']);
  });
});
