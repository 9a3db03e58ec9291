import { OutboundBlockedError } from '../outbound/outbound-blocked-error';
import { ArgumentValidator } from './arguments';
import { runTool, type RunToolOptions, type ToolCallOutcome, validatorKey } from './run-tool';
import { type ToolDefinition, type ToolExecuteContext, type ToolRunContext } from '../shared/tool-definition';
import { ToolExecutionError, ToolForbiddenError, ToolTimeoutError } from '../shared/tool-errors';

const weatherParameters = {
  type: 'object',
  properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1 } },
  required: ['city'],
  additionalProperties: false,
};

const makeTool = (
  execute: ToolDefinition['execute'],
  overrides: Partial<ToolDefinition> = {},
  name = 'get_weather',
): ToolDefinition => ({
  schema: { type: 'function', function: { name, description: 'Weather', parameters: weatherParameters } },
  effect: 'read_only',
  execute,
  ...overrides,
});

const makeRunContext = (signal = new AbortController().signal): ToolRunContext => ({
  runId: 'run-1',
  userId: 'user-1',
  isAdmin: false,
  signal,
  depth: 0,
});

const never = (signal: AbortSignal): Promise<never> =>
  new Promise((_resolve, reject) =>
    signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }),
  );

describe(runTool.name, () => {
  let validator: ArgumentValidator;

  beforeEach(() => {
    validator = new ArgumentValidator();
  });

  const run = (tool: ToolDefinition, args: string, overrides: Partial<RunToolOptions> = {}): Promise<ToolCallOutcome> =>
    runTool({
      call: { id: 'call-1', name: 'get_weather', arguments: args },
      tools: [tool, makeTool(() => Promise.resolve({ response: '' }), {}, 'calculator')],
      context: makeRunContext(),
      validator,
      defaultTimeoutMs: 1000,
      ...overrides,
    });

  it('should execute a valid call and pass results through', async () => {
    const execute = jest.fn(({ params }: ToolExecuteContext) =>
      Promise.resolve({
        response: `sunny in ${String(params.city)}`,
        data: { temperature: 21 },
        metadata: { source: 'test' },
        usage: { promptTokens: 1, completionTokens: 2 },
        stop: true,
      }),
    );

    const outcome = await run(makeTool(execute), '{"city":"Paris"}');

    expect(outcome).toMatchObject({
      toolName: 'get_weather',
      status: 'success',
      response: 'sunny in Paris',
      data: { temperature: 21 },
      params: { city: 'Paris' },
      usage: { promptTokens: 1, completionTokens: 2 },
      stop: true,
      metadata: { source: 'test', duration_ms: expect.any(Number) },
    });
    expect(outcome.errorKind).toBeUndefined();
    expect(execute).toHaveBeenCalledWith(
      expect.objectContaining({ messages: [], run: expect.objectContaining({ runId: 'run-1' }) }),
    );
  });

  it('should time the call from before validation to after execution', async () => {
    jest.useFakeTimers({ now: new Date('2026-01-01T00:00:00.000Z'), doNotFake: ['nextTick', 'queueMicrotask'] });
    try {
      const execute = () => {
        jest.setSystemTime(new Date('2026-01-01T00:00:00.040Z'));
        return Promise.resolve({ response: 'sunny' });
      };

      const outcome = await run(makeTool(execute), '{"city":"Paris"}');

      expect(outcome.startedAt.toISOString()).toBe('2026-01-01T00:00:00.000Z');
      expect(outcome.finishedAt.toISOString()).toBe('2026-01-01T00:00:00.040Z');
      expect(outcome.metadata.duration_ms).toBe(40);
    } finally {
      jest.useRealTimers();
    }
  });

  it('should suggest the closest name and list the available tools for an unknown name', async () => {
    const outcome = await run(makeTool(jest.fn()), '{}', {
      call: { id: 'call-1', name: 'get_wether', arguments: '{}' },
    });

    expect(outcome).toMatchObject({ status: 'not_found', errorKind: 'not_found', toolName: 'get_wether' });
    expect(outcome.response).toBe(
      'Error: there is no tool named "get_wether". Did you mean "get_weather"? Available tools: get_weather, calculator.',
    );
  });

  it('should suggest nothing for a name far from every tool, and list at most 20 names', async () => {
    const many = Array.from({ length: 25 }, (_, index) => makeTool(jest.fn(), {}, `tool_${index}`));
    const outcome = await run(makeTool(jest.fn()), '{}', {
      call: { id: 'call-1', name: 'send_email', arguments: '{}' },
      tools: many,
    });

    expect(outcome.response).not.toContain('Did you mean');
    expect(outcome.response).toMatch(/tool_19 and 5 more\.$/);
  });

  it('should run a call whose arguments were written as a Python call', async () => {
    const execute = jest.fn(() => Promise.resolve({ response: 'ok' }));

    const outcome = await run(makeTool(execute), 'get_weather(city="Paris", days=2)');

    expect(outcome).toMatchObject({ status: 'success', params: { city: 'Paris', days: 2 } });
    expect(outcome.metadata.repair_note).toBe('read Python-style keyword arguments');
  });

  it('should answer unparseable arguments with the formatted error text', async () => {
    const execute = jest.fn();

    const outcome = await run(makeTool(execute), '[1, 2]');

    expect(outcome).toMatchObject({ status: 'invalid_arguments', errorKind: 'invalid_arguments' });
    expect(outcome.response).toContain('Invalid arguments for tool "get_weather"');
    expect(outcome.response).toContain('arguments must be a JSON object, got an array (rule: json)');
    expect(outcome.response).toContain('Expected arguments: {city: string, days?: integer, >= 1}');
    expect(execute).not.toHaveBeenCalled();
  });

  it('should answer schema violations with field errors', async () => {
    const outcome = await run(makeTool(jest.fn()), '{"days":0}');

    expect(outcome.status).toBe('invalid_arguments');
    expect(outcome.errors?.map((error) => [error.path, error.rule])).toEqual([
      ['/city', 'required'],
      ['/days', 'minimum'],
    ]);
    expect(outcome.response).toContain('- /days: must be >= 1 (rule: minimum); received 0; expected integer, >= 1');
  });

  it('should record repaired arguments in the metadata', async () => {
    const outcome = await run(
      makeTool(() => Promise.resolve({ response: 'ok' })),
      "{'city': 'Paris',}",
    );

    expect(outcome).toMatchObject({
      status: 'success',
      metadata: { repaired_arguments: true, repair_note: 'repaired malformed JSON' },
    });
  });

  it('should apply parseParams and report its failure as invalid arguments', async () => {
    const execute = jest.fn(({ params }: ToolExecuteContext) => Promise.resolve({ response: JSON.stringify(params) }));
    const tool = makeTool(execute, {
      parseParams: (params) =>
        params.city === 'Atlantis'
          ? { success: false, errorMessage: 'city does not exist' }
          : { success: true, data: { ...params, city: String(params.city).toUpperCase() } },
    });

    const ok = await run(tool, '{"city":"Paris"}');
    const refused = await run(tool, '{"city":"Atlantis"}');

    expect(ok).toMatchObject({ status: 'success', response: '{"city":"PARIS"}', params: { city: 'PARIS' } });
    expect(refused).toMatchObject({
      status: 'invalid_arguments',
      response: 'Invalid arguments for tool "get_weather": city does not exist',
    });
  });

  it('should turn a ToolExecutionError into a response with its data and metadata', async () => {
    const tool = makeTool(() =>
      Promise.reject(
        new ToolExecutionError('upstream said no', { statusCode: 502, data: { body: 'x' }, metadata: { attempt: 2 } }),
      ),
    );

    const outcome = await run(tool, '{"city":"Paris"}');

    expect(outcome).toMatchObject({
      status: 'error',
      errorKind: 'execution_error',
      response: 'Error: upstream said no',
      data: { body: 'x' },
      metadata: { attempt: 2, status_code: 502 },
    });
  });

  it.each([
    ['a ToolForbiddenError', new ToolForbiddenError('not yours')],
    ['an SSRF refusal', new OutboundBlockedError('loopback', 'not yours')],
  ])('should classify %s as forbidden', async (_case, error) => {
    const outcome = await run(
      makeTool(() => Promise.reject(error)),
      '{"city":"Paris"}',
    );

    expect(outcome).toMatchObject({ status: 'error', errorKind: 'forbidden' });
    expect(outcome.response).toMatch(/^Error: (blocked: )?not yours$/);
  });

  it('should classify a ToolTimeoutError as a timeout with its own message', async () => {
    const outcome = await run(
      makeTool(() => Promise.reject(new ToolTimeoutError('query stopped at its 100 ms limit'))),
      '{"city":"Paris"}',
    );

    expect(outcome).toMatchObject({
      status: 'timeout',
      errorKind: 'timeout',
      response: 'Error: query stopped at its 100 ms limit',
    });
  });

  it.each([
    ['an Error', new TypeError('boom'), 'Error: boom'],
    ['a string', 'plain failure', 'Error: plain failure'],
    ['an object', { code: 7 }, 'Error: {"code":7}'],
  ])('should turn a thrown %s into an error response', async (_case, thrown, response) => {
    const tool = makeTool(() => {
      // eslint-disable-next-line @typescript-eslint/only-throw-error -- non-Error throws are the case under test
      throw thrown;
    });

    const outcome = await run(tool, '{"city":"Paris"}');

    expect(outcome).toMatchObject({ status: 'error', errorKind: 'execution_error', response });
  });

  it('should time out, abort the signal the tool sees and report it', async () => {
    let seen: AbortSignal | undefined;
    const tool = makeTool(
      ({ signal }) => {
        seen = signal;
        return never(signal);
      },
      { timeoutMs: 20 },
    );

    const outcome = await run(tool, '{"city":"Paris"}');

    expect(outcome).toMatchObject({
      status: 'timeout',
      errorKind: 'timeout',
      response: 'Tool get_weather timed out after 20 ms',
    });
    expect(seen?.aborted).toBe(true);
  });

  it('should use the default timeout when the tool has none', async () => {
    const outcome = await run(
      makeTool(({ signal }) => never(signal)),
      '{"city":"Paris"}',
      { defaultTimeoutMs: 15 },
    );

    expect(outcome.response).toBe('Tool get_weather timed out after 15 ms');
  });

  it('should stop and abort the tool when the run is cancelled', async () => {
    const controller = new AbortController();
    let seen: AbortSignal | undefined;
    const tool = makeTool(({ signal }) => {
      seen = signal;
      setImmediate(() => controller.abort());
      return never(signal);
    });

    const outcome = await run(tool, '{"city":"Paris"}', { context: makeRunContext(controller.signal) });

    expect(outcome).toMatchObject({
      status: 'cancelled',
      response: 'Tool get_weather was cancelled before it finished',
    });
    expect(seen?.aborted).toBe(true);
  });

  it('should not execute when the run is already cancelled', async () => {
    const controller = new AbortController();
    controller.abort();
    const execute = jest.fn();

    const outcome = await run(makeTool(execute), '{"city":"Paris"}', { context: makeRunContext(controller.signal) });

    expect(outcome.status).toBe('cancelled');
    expect(execute).not.toHaveBeenCalled();
  });

  it('should report a broken parameters schema as an execution error', async () => {
    const tool = makeTool(jest.fn());
    tool.schema.function.parameters = { type: 'object', properties: { a: { $ref: '#/nowhere' } } };

    const outcome = await run(tool, '{}');

    expect(outcome).toMatchObject({ status: 'error', errorKind: 'execution_error' });
    expect(outcome.response).toMatch(/^Error: tool get_weather has an invalid parameters schema/);
  });

  describe('hooks', () => {
    const paths: [string, ToolDefinition, string, string][] = [
      ['success', makeTool(() => Promise.resolve({ response: 'ok' })), 'get_weather', '{"city":"a"}'],
      ['not_found', makeTool(jest.fn()), 'nope', '{}'],
      ['invalid_arguments', makeTool(jest.fn()), 'get_weather', '{}'],
      ['error', makeTool(() => Promise.reject(new Error('x'))), 'get_weather', '{"city":"a"}'],
      ['timeout', makeTool(({ signal }) => never(signal), { timeoutMs: 10 }), 'get_weather', '{"city":"a"}'],
    ];

    it.each(paths)('should fire each hook exactly once on the %s path', async (status, tool, name, args) => {
      const onToolCall = jest.fn();
      const onAfterToolCall = jest.fn();

      const outcome = await run(tool, args, {
        call: { id: 'c', name, arguments: args },
        hooks: { onToolCall, onAfterToolCall },
      });

      expect(outcome.status).toBe(status);
      expect(onToolCall).toHaveBeenCalledTimes(1);
      expect(onToolCall).toHaveBeenCalledWith({ id: 'c', name, arguments: args });
      expect(onAfterToolCall).toHaveBeenCalledTimes(1);
      expect(onAfterToolCall).toHaveBeenCalledWith(outcome);
    });

    it('should survive throwing hooks and log them', async () => {
      const warn = jest.fn();
      const onAfterToolCall = jest.fn(() => Promise.reject(new Error('hook failed')));

      const outcome = await run(
        makeTool(() => Promise.resolve({ response: 'ok' })),
        '{"city":"a"}',
        {
          hooks: {
            onToolCall: () => {
              throw new Error('hook failed');
            },
            onAfterToolCall,
          },
          logger: { warn },
        },
      );

      expect(outcome).toMatchObject({ status: 'success', response: 'ok' });
      expect(onAfterToolCall).toHaveBeenCalledTimes(1);
      expect(warn).toHaveBeenCalledTimes(2);
      expect(warn).toHaveBeenCalledWith('tool run hook onToolCall failed', expect.any(Error));
    });
  });

  describe(validatorKey.name, () => {
    it('should key stored tools by id and version', () => {
      expect(validatorKey(makeTool(jest.fn(), { id: 't1', version: 3 }))).toBe('t1@3');
    });

    it('should key other tools by name and schema content', () => {
      const first = makeTool(jest.fn());
      const changed = makeTool(jest.fn());
      changed.schema.function.parameters = { ...weatherParameters, required: [] };

      expect(validatorKey(first)).toMatch(/^get_weather#[0-9a-f]{16}$/);
      expect(validatorKey(first)).toBe(validatorKey(makeTool(jest.fn())));
      expect(validatorKey(changed)).not.toBe(validatorKey(first));
    });
  });
});
