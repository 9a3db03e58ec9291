import type { ChatProvider, ChatRequest, ChatResponse, ChatStreamEvent } from '../../src/llm/provider';
import type { RetryOptions } from '../../src/llm/retry';
import type { ProviderOptions } from '../../src/llm/streaming-provider';
import type { ChatMessage } from '../../src/shared/chat-types';
import type { FunctionTool } from '../../src/shared/tool-types';

/** The tool the provider specs offer the model. */
export const weatherTool: FunctionTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Current weather',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

interface TestServer {
  readonly baseUrl: string;
  reset(): void;
  close(): Promise<void>;
}

/** The provider under test and the request every test of its spec starts from. */
export interface ProviderSpecSetup<S extends TestServer, P extends ChatProvider> {
  start: () => Promise<S>;
  create: (options: ProviderOptions) => P;
  name: string;
  apiKey?: string;
  model: string;
  messages?: ChatMessage[];
}

export interface ProviderSpecHarness<S extends TestServer, P extends ChatProvider> {
  /** The protocol's scripted test server: one per spec file, reset before each test. */
  readonly server: S;
  /** The stream events of the current test (pass `onEvent`). */
  readonly events: ChatStreamEvent[];
  /** This test's stream events of one type. */
  eventsOf<T extends ChatStreamEvent['type']>(type: T): Array<Extract<ChatStreamEvent, { type: T }>>;
  /** The backoff waits of the current test (pass `retry`): recorded, never waited. */
  readonly sleeps: number[];
  readonly retry: RetryOptions;
  readonly onEvent: (event: ChatStreamEvent) => void;
  /** The provider against the test server, recording into this test's lists; `options` override. */
  createSut(options?: Partial<ProviderOptions>): P;
  /** The spec's request (the weather tool offered); `overrides` replace its fields. */
  request(overrides?: Partial<ChatRequest>): ChatRequest;
  /** Sends `request(overrides)` through `sut`, its events recorded. */
  chat(overrides?: Partial<ChatRequest>, sut?: P, signal?: AbortSignal): Promise<ChatResponse>;
}

/**
 * What every provider spec arranges alike; call it at the top of the spec's `describe`. Each test gets lists
 * of its own: `onEvent` and `retry`, taken during a test, record into that test's lists even when a stream of
 * it goes on after it ended.
 */
export function providerSpecHarness<S extends TestServer, P extends ChatProvider>(
  setup: ProviderSpecSetup<S, P>,
): ProviderSpecHarness<S, P> {
  const { start, create, name, apiKey, model } = setup;
  const messages = setup.messages ?? [{ role: 'user', content: 'Weather in Paris?' }];
  let server: S | undefined;
  let events: ChatStreamEvent[] = [];
  let sleeps: number[] = [];

  beforeAll(async () => {
    server = await start();
  });

  beforeEach(() => {
    server?.reset();
    events = [];
    sleeps = [];
  });

  afterAll(async () => {
    await server?.close();
  });

  const harness: ProviderSpecHarness<S, P> = {
    get server(): S {
      if (server === undefined) throw new Error('the test server starts in beforeAll');
      return server;
    },
    get events() {
      return events;
    },
    eventsOf: <T extends ChatStreamEvent['type']>(type: T) =>
      events.filter((event): event is Extract<ChatStreamEvent, { type: T }> => event.type === type),
    get sleeps() {
      return sleeps;
    },
    get retry(): RetryOptions {
      const waits = sleeps;
      return {
        random: () => 0.5,
        sleep: (ms) => {
          waits.push(ms);
          return Promise.resolve();
        },
      };
    },
    get onEvent() {
      const received = events;
      return (event: ChatStreamEvent) => void received.push(event);
    },
    createSut: (options = {}) =>
      create({ name, baseUrl: harness.server.baseUrl, apiKey, retry: harness.retry, ...options }),
    request: (overrides = {}) => ({ model, messages: structuredClone(messages), tools: [weatherTool], ...overrides }),
    chat: (overrides = {}, sut = harness.createSut(), signal) =>
      sut.chat(harness.request(overrides), { signal, onEvent: harness.onEvent }),
  };
  return harness;
}
