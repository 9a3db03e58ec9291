import type { ChatStreamEvent } from '../../src/llm/provider';
import type { RetryOptions } from '../../src/llm/retry';
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
  reset(): void;
  close(): Promise<void>;
}

export interface ProviderSpecHarness<S extends TestServer> {
  /** The protocol's scripted test server: one per spec file, reset before each test. */
  readonly server: S;
  /** The stream events of the current test (pass `onEvent`). */
  readonly events: ChatStreamEvent[];
  /** The backoff waits of the current test (pass `retry`): recorded, never waited. */
  readonly sleeps: number[];
  readonly retry: RetryOptions;
  readonly onEvent: (event: ChatStreamEvent) => void;
}

/**
 * What every provider spec arranges alike; call it at the top of the spec's `describe`. Each test gets lists
 * of its own: `onEvent` and `retry`, taken during a test, record into that test's lists even when a stream of
 * it goes on after it ended.
 */
export function providerSpecHarness<S extends TestServer>(start: () => Promise<S>): ProviderSpecHarness<S> {
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

  return {
    get server(): S {
      if (server === undefined) throw new Error('the test server starts in beforeAll');
      return server;
    },
    get events() {
      return events;
    },
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
  };
}
