import { chatResponse } from '../../../test/factories/chat-response.factory';
import type { ProviderRegistry } from '../../llm/provider-registry';
import type { RegistryService } from '../../registry/registry.service';
import type { ToolCalls } from '../../executors/tool-calls.service';
import type { ToolDefinition } from '../../shared/tool-definition';
import type { WorkflowDefinition, WorkflowNode } from '../definition.schema';
import type { Scope } from '../references';
import type { RunContext } from '../execution/run-context';
import { createAjv } from '../../json-schema/create-ajv';
import type { NodeHandler, NodeServices } from './node-handler';
import { NODE_HANDLERS, NODE_TYPES, type NodeType } from './node-handlers';
import { OwnerEvidence } from '../../agent/selection/usage-evidence';

const weather: ToolDefinition = {
  schema: { type: 'function', function: { name: 'weather', parameters: { type: 'object', properties: {} } } },
  effect: 'read_only',
  execute: () => Promise.resolve({ response: 'sunny' }),
};

const services = (): NodeServices => ({
  defaultProvider: 'local',
  defaultTimeoutMs: 60_000,
  providers: {
    getProvider: () => ({ name: 'local', chat: () => Promise.resolve(chatResponse({ content: '{"sky":"sunny"}' })) }),
    resolveModel: () => 'local-model',
    contextWindow: () => 32_768,
  } as unknown as ProviderRegistry,
  registry: {
    resolve: () => Promise.resolve({ definitions: [weather], missing: [], disabled: [] }),
  } as unknown as RegistryService,
  callLogs: { flushRunInBackground: () => Promise.resolve() },
  toolCalls: {
    // The weather tool needs no approval.
    approvalRequestFor: () => null,
    runCall: ({ call }: { call: { id: string } }) =>
      Promise.resolve({
        call,
        toolName: 'weather',
        status: 'success',
        response: 'sunny',
        metadata: { duration_ms: 1 },
      }),
  } as unknown as ToolCalls,
});

const run: RunContext = {
  runId: 'run-1',
  principal: { userId: 'user-1', role: 'user', keyId: 'key-1' },
  depth: 0,
  signal: new AbortController().signal,
  emit: () => undefined,
};

const INPUTS = {
  type: 'object',
  properties: { city: { type: 'string' } },
  required: ['city'],
  additionalProperties: false,
};

/** One sample node per type; a new type fails to compile until it has one. */
const SAMPLES: { [K in NodeType]: Extract<WorkflowNode, { type: K }> } = {
  start: { id: 'start', type: 'start', data: {} },
  llm: {
    id: 'llm-1',
    type: 'llm',
    data: {
      prompt: 'Weather in {{inputs.city}}?',
      tools: ['weather'],
      output_schema: { type: 'object', properties: { sky: { type: 'string' } }, required: ['sky'] },
    },
  },
  template: { id: 'template-1', type: 'template', data: { template: 'It is {{llm-1.output}}' } },
  condition: { id: 'condition-1', type: 'condition', data: { conditions: [{ left: 'a', op: 'equals', right: 'a' }] } },
  tool: { id: 'tool-1', type: 'tool', data: { tool: 'weather', arguments: { city: '{{inputs.city}}' } } },
  end: { id: 'end', type: 'end', data: {} },
  map: {
    id: 'map-1',
    type: 'map',
    data: { items: ['Berlin', 'Paris'], tool: 'weather', arguments: { city: '{{item}}' } },
  },
  loop: {
    id: 'loop-1',
    type: 'loop',
    data: {
      nodes: [
        { id: 'inner-start', type: 'start' },
        { id: 'inner-end', type: 'end' },
      ],
      edges: [{ source: 'inner-start', target: 'inner-end' }],
      max_iterations: 3,
      conditions: [{ left: '{{iteration}}', op: 'less_than', right: 1 }],
    },
  },
};

/** Stands in for the engine's nested runs: every run of a nested graph outputs what a successful tool node does. */
const runGraph = () =>
  Promise.resolve({ outputs: { output: 'sunny', data: null, status: 'success', error: null }, nodes: {} });

describe('NODE_HANDLERS', () => {
  const definition: WorkflowDefinition = { name: 'sample', nodes: Object.values(SAMPLES), edges: [] };
  /** Runs an LLM node with `data` (asking about Berlin) on `deps`, with a checkpoint step that stores nothing. */
  const runLlmNode = (data: NonNullable<typeof SAMPLES.llm.data>, deps: NodeServices) =>
    NODE_HANDLERS.llm.run({
      node: { ...SAMPLES.llm, data },
      data,
      scope: { inputs: { city: 'Berlin' } },
      run,
      definition,
      services: deps,
      handlers: NODE_HANDLERS,
      runGraph,
      step: { state: undefined, save: () => Promise.resolve() },
    });

  it.each(NODE_TYPES)('should produce an output that matches the shape the %s handler declares', async (type) => {
    const handler = NODE_HANDLERS[type] as NodeHandler;
    const scope: Scope = { inputs: { city: 'Berlin' }, 'llm-1': { output: 'sunny' } };
    const node = SAMPLES[type];
    const output = await handler.run({
      node,
      data: node.data,
      scope,
      run,
      definition,
      services: services(),
      handlers: NODE_HANDLERS,
      runGraph,
    });
    const shape = handler.output(node.data ?? {}, { inputs: INPUTS });
    const validate = createAjv('draft-07').compile(shape);
    expect(validate.errors ?? (validate(output) ? [] : validate.errors)).toEqual([]);
    const declared = (shape as { properties: object }).properties;
    // Every declared field is there: a reference the save-time check lets through finds a value.
    expect(Object.keys(output).sort()).toEqual(Object.keys(declared).sort());
  });

  it('should have exactly one entry type and at least one exit type', () => {
    const handlers: NodeHandler[] = Object.values(NODE_HANDLERS);
    expect(handlers.filter((handler) => handler.entry)).toHaveLength(1);
    expect(handlers.filter((handler) => handler.exit).length).toBeGreaterThan(0);
  });

  it('should let the LLM node use its tools unless enable_tools is false or none are listed', () => {
    const { toolsUsed } = NODE_HANDLERS.llm;
    expect(toolsUsed?.({ prompt: 'x', tools: ['weather'] })).toEqual({
      field: 'tools',
      names: ['weather'],
      selectors: [],
    });
    expect(toolsUsed?.({ prompt: 'x', tools: ['weather', '*', { category: 'web' }] })).toEqual({
      field: 'tools',
      names: ['weather'],
      selectors: [null, 'web'],
    });
    expect(toolsUsed?.({ prompt: 'x', tools: ['weather'], enable_tools: false })).toBeNull();
    expect(toolsUsed?.({ prompt: 'x', tools: [], enable_tools: true })).toBeNull();
  });

  it('should publish enable_tools with no default, as the tools a node lists are on unless it says false', () => {
    const field = (NODE_HANDLERS.llm.data as { properties: Record<string, Record<string, unknown>> }).properties
      .enable_tools;

    expect(field.default).toBeUndefined();
    expect(field.description).toMatch(/on when tools lists some/);
  });

  /** An LLM node of two rounds of one `weather` call each, whose call logs take longer to store than a checkpoint. */
  const twoRoundsWithSlowCallLogs = (effect: ToolDefinition['effect']) => {
    const events: string[] = [];
    const answers = [
      chatResponse({ toolCalls: [{ id: 'c1', name: 'weather', arguments: '{}' }], finishReason: 'tool_calls' }),
      chatResponse({ toolCalls: [{ id: 'c2', name: 'weather', arguments: '{}' }], finishReason: 'tool_calls' }),
      chatResponse({ content: 'Sunny twice.' }),
    ];
    let flushes = 0;
    const base = services();
    const deps: NodeServices = {
      ...base,
      providers: {
        ...base.providers,
        getProvider: () => ({
          name: 'local',
          chat: () => {
            events.push('model call');
            return Promise.resolve(answers.shift());
          },
        }),
        resolveModel: () => 'local-model',
        contextWindow: () => 32_768,
      } as unknown as ProviderRegistry,
      registry: {
        resolve: () => Promise.resolve({ definitions: [{ ...weather, effect }], missing: [], disabled: [] }),
      } as unknown as RegistryService,
      callLogs: {
        // Slower than the checkpoint: the logs of a round are still being written when the next one could start.
        flushRunInBackground: () => {
          const flush = ++flushes;
          return new Promise<void>((resolve) =>
            setTimeout(() => {
              events.push(`logs stored ${flush}`);
              resolve();
            }, 20),
          );
        },
      },
      toolCalls: {
        approvalRequestFor: () => null,
        runCall: ({ call }: { call: { id: string } }) => {
          events.push(`call ${call.id}`);
          return Promise.resolve({ call, toolName: 'weather', status: 'success', response: 'sunny', metadata: {} });
        },
      } as unknown as ToolCalls,
    };
    const data = { prompt: 'Weather in {{inputs.city}}?', tools: ['weather'] };
    return { events, run: () => runLlmNode(data, deps) };
  };

  it("should start a mutating round's calls only once the call logs of the rounds before are stored", async () => {
    const sut = twoRoundsWithSlowCallLogs('mutating');

    const output = await sut.run();

    expect(output).toMatchObject({ output: 'Sunny twice.' });
    // The second model answer started storing c1's log; c2 waited for it.
    expect(sut.events.indexOf('logs stored 2')).toBeGreaterThan(sut.events.indexOf('call c1'));
    expect(sut.events.indexOf('logs stored 2')).toBeLessThan(sut.events.indexOf('call c2'));
  });

  it("should run a read-only round's calls while the round before is stored, and end its round after", async () => {
    const sut = twoRoundsWithSlowCallLogs('read_only');

    const output = await sut.run();

    expect(output).toMatchObject({ output: 'Sunny twice.' });
    // c2 may run twice without harm: it starts at once, and the model is called again once c1's log is stored.
    expect(sut.events.slice(0, 7)).toEqual([
      'model call',
      'call c1',
      'logs stored 1',
      'model call',
      'call c2',
      'logs stored 2',
      'model call',
    ]);
  });

  it("should teach its owner's evidence the tools the model called from the selection", async () => {
    const tool = (name: string, description: string): ToolDefinition => ({
      ...weather,
      schema: { type: 'function', function: { name, description, parameters: { type: 'object', properties: {} } } },
    });
    const tools = [
      tool('weather', 'Current weather for a city'),
      tool('stock_quote', 'Latest price of a stock'),
      tool('send_email', 'Sends an email'),
    ];
    const answers = [
      chatResponse({ toolCalls: [{ id: 'c1', name: 'weather', arguments: '{}' }], finishReason: 'tool_calls' }),
      chatResponse({ content: 'Sunny.' }),
    ];
    const base = services();
    const toolUsage = new OwnerEvidence();
    const deps: NodeServices = {
      ...base,
      toolUsage,
      providers: {
        ...base.providers,
        getProvider: () => ({ name: 'local', chat: () => Promise.resolve(answers.shift()) }),
        resolveModel: () => 'local-model',
        contextWindow: () => 32_768,
      } as unknown as ProviderRegistry,
      registry: {
        ...base.registry,
        resolve: () => Promise.resolve({ definitions: tools, missing: [], disabled: [] }),
      } as unknown as RegistryService,
    };
    const data = {
      prompt: 'Weather in {{inputs.city}}?',
      tools: tools.map((entry) => entry.schema.function.name),
      tool_selection: { max_tools: 1 },
    };

    await runLlmNode(data, deps);

    expect([...toolUsage.of('user-1').scores('weather Berlin').keys()]).toEqual(['name:weather']);
    expect(toolUsage.of('user-2').scores('weather Berlin').size).toBe(0);
  });
});
