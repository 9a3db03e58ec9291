import { getEventListeners } from 'node:events';
import { abortListenersLeftBy } from '../../test/support/abort-listeners';
import { freePort } from '../../test/support/free-port';
import { delta, reply } from '../../test/support/openai-test-server';
import { openAIChatHarness } from '../../test/support/openai-chat-harness';
import { OpenAIChatProvider } from './openai-chat.provider';
import { ProviderError } from './provider';

/** Retries, the call budget, cancellation and abort listeners of the OpenAI Chat provider. */
describe(OpenAIChatProvider.name, () => {
  const harness = openAIChatHarness();
  const { createSut, request, chat, eventsOf } = harness;

  const waitFor = async (condition: () => boolean): Promise<void> => {
    while (!condition()) await new Promise((resolve) => setImmediate(resolve));
  };

  describe('retries', () => {
    it('should honour Retry-After on 429 and then succeed', async () => {
      harness.server.script([
        reply.error(429, 'Rate limit reached for requests', { headers: { 'retry-after': '2' } }),
        reply.text('ok'),
      ]);

      const response = await chat();

      expect(response.content).toBe('ok');
      expect(harness.server.requests).toHaveLength(2);
      expect(harness.sleeps).toEqual([2_000]);
      expect(eventsOf('retry')).toEqual([
        { type: 'retry', attempt: 1, delayMs: 2_000, reason: 'provider 429: Rate limit reached for requests' },
      ]);
    });

    it('should retry 500 twice with backoff and then succeed', async () => {
      harness.server.script([reply.error(500, 'boom'), reply.error(503, 'busy'), reply.text('ok')]);

      const response = await chat();

      expect(response.content).toBe('ok');
      expect(harness.server.requests).toHaveLength(3);
      expect(harness.sleeps).toEqual([250, 500]);
      expect(eventsOf('retry').map((event) => event.attempt)).toEqual([1, 2]);
    });

    it('should fail at once on 401 with the provider message', async () => {
      harness.server.script([reply.error(401, 'Incorrect API key provided'), reply.text('never')]);

      const failure = chat();

      await expect(failure).rejects.toBeInstanceOf(ProviderError);
      await expect(failure).rejects.toMatchObject({
        message: 'provider 401: Incorrect API key provided',
        status: 401,
        retryable: false,
      });
      expect(harness.server.requests).toHaveLength(1);
    });

    it.each([400, 403, 404, 422])('should not retry a %i', async (status) => {
      harness.server.script([reply.error(status, 'nope')]);

      await expect(chat()).rejects.toMatchObject({ message: `provider ${status}: nope`, status });
      expect(harness.server.requests).toHaveLength(1);
    });

    it('should keep a plain-text error body as the message', async () => {
      harness.server.script([reply.error(400, '', { body: 'model not found' })]);

      await expect(chat()).rejects.toThrow('provider 400: model not found');
    });

    it('should give up after the configured retries with the last error', async () => {
      harness.server.script([reply.error(502, 'a'), reply.error(502, 'b'), reply.error(502, 'c')]);

      await expect(
        chat({}, createSut({ retry: { maxRetries: 2, sleep: () => Promise.resolve() } })),
      ).rejects.toMatchObject({ message: 'provider 502: c', status: 502, retryable: true });
      expect(harness.server.requests).toHaveLength(3);
    });

    it('should retry a connection dropped before any answer', async () => {
      harness.server.script([reply.drop(), reply.text('ok')]);

      const response = await chat();

      expect(response.content).toBe('ok');
      expect(harness.server.requests).toHaveLength(2);
      expect(eventsOf('retry')[0].reason).toMatch(/^provider connection failed/);
    });

    it('should name what failed underneath when the provider cannot be reached at all', async () => {
      const port = await freePort();
      const unreachable = createSut({ baseUrl: `http://127.0.0.1:${port}/v1`, retry: { maxRetries: 0 } });

      await expect(chat({}, unreachable)).rejects.toMatchObject({
        message: `provider connection failed: Connection error: fetch failed: connect ECONNREFUSED 127.0.0.1:${port}`,
      });
    });

    it('should retry a stream cut after deltas were emitted and announce it with a retry event', async () => {
      harness.server.script([
        reply.text('partial answer that breaks', { dropAfterEvents: 3 }),
        reply.text('full answer'),
      ]);

      const response = await chat();

      expect(response.content).toBe('full answer');
      const types = harness.events.map((event) => event.type);
      expect(types.indexOf('text-delta')).toBeLessThan(types.indexOf('retry'));
      expect(eventsOf('retry')[0].reason).toMatch(/^provider connection lost/);
    });

    it('should retry an error object sent inside the stream', async () => {
      harness.server.script([
        reply.chunks([delta({ content: 'Hel' }), { raw: 'data: {"error":{"message":"overloaded"}}\n\n' }]),
        reply.text('Hello'),
      ]);

      const response = await chat();

      expect(response.content).toBe('Hello');
      expect(eventsOf('retry')[0].reason).toBe('provider stream error: overloaded');
    });

    it('should retry when the provider stays silent longer than timeoutMs', async () => {
      harness.server.script([reply.text('slow', { delayMs: 2_000 }), reply.text('fast')]);

      const response = await chat({}, createSut({ timeoutMs: 100, retry: { sleep: () => Promise.resolve() } }));

      expect(response.content).toBe('fast');
      expect(eventsOf('retry')[0].reason).toMatch(/timed out|sent nothing/);
    });
  });

  describe('call budget', () => {
    it('should fail, not retry, when the budget runs out while the provider never answers', async () => {
      harness.server.script([reply.hang(), reply.text('never')]);

      const failure = chat({}, createSut({ callBudgetMs: 200 }));

      await expect(failure).rejects.toBeInstanceOf(ProviderError);
      await expect(failure).rejects.toMatchObject({
        message: 'the LLM call budget of 200 ms ran out after 1 attempt',
        retryable: false,
      });
      expect(harness.server.requests).toHaveLength(1);
      expect(eventsOf('retry')).toEqual([]);
    });

    it('should count every attempt against one budget', async () => {
      harness.server.script([reply.error(503, 'busy'), reply.error(503, 'busy'), reply.hang(), reply.text('never')]);

      await expect(chat({}, createSut({ callBudgetMs: 300 }))).rejects.toThrow(
        'the LLM call budget of 300 ms ran out after 3 attempts',
      );
      expect(harness.server.requests).toHaveLength(3);
    });

    it('should keep the caller reason when the caller cancels within the budget', async () => {
      harness.server.script([reply.hang()]);
      const controller = new AbortController();
      const reason = new Error('run cancelled');

      const failure = chat({}, createSut({ callBudgetMs: 60_000 }), controller.signal);
      await waitFor(() => harness.server.requests.length === 1);
      controller.abort(reason);

      await expect(failure).rejects.toBe(reason);
    });
  });

  describe('cancellation', () => {
    it('should abort a delayed stream at once with the signal reason and not retry', async () => {
      harness.server.script([
        reply.chunks([delta({ content: 'a long' }), delta({ content: ' answer' }, 'stop')], { chunkDelayMs: 5_000 }),
        reply.text('never'),
      ]);
      const controller = new AbortController();
      const reason = new Error('run cancelled');
      const sut = createSut();

      const failure = sut.chat(request(), {
        signal: controller.signal,
        onEvent: (event) => {
          harness.events.push(event);
          controller.abort(reason);
        },
      });

      await expect(failure).rejects.toBe(reason);
      expect(eventsOf('text-delta')).toEqual([{ type: 'text-delta', delta: 'a long' }]);
      expect(harness.server.requests).toHaveLength(1);
      expect(eventsOf('retry')).toEqual([]);
    });

    it('should abort before the headers arrive with an AbortError', async () => {
      harness.server.script([reply.text('late', { delayMs: 5_000 })]);
      const controller = new AbortController();

      const failure = chat({}, createSut(), controller.signal);
      setTimeout(() => controller.abort(), 20);

      await expect(failure).rejects.toMatchObject({ name: 'AbortError' });
      await expect(failure).rejects.not.toBeInstanceOf(ProviderError);
    });

    it('should abort during a backoff sleep', async () => {
      harness.server.script([reply.error(503, 'busy', { headers: { 'retry-after': '60' } })]);
      const controller = new AbortController();
      const sut = createSut({ retry: {} });

      const failure = sut.chat(request(), {
        signal: controller.signal,
        onEvent: (event) => event.type === 'retry' && controller.abort(),
      });

      await expect(failure).rejects.toMatchObject({ name: 'AbortError' });
    });
  });

  describe('abort listeners', () => {
    it('should leave no abort listener behind on the caller signal or any signal that can still abort', async () => {
      const parent = new AbortController();
      const sut = createSut();
      harness.server.script([
        reply.text('one'),
        reply.error(503, 'busy'),
        reply.text('two'),
        reply.ignoringStream(reply.text('three')),
      ]);

      const left = await abortListenersLeftBy(async () => {
        await chat({}, sut, parent.signal);
        await chat({}, sut, parent.signal);
        await chat({}, sut, parent.signal);
      });

      expect(harness.server.requests).toHaveLength(4);
      expect(getEventListeners(parent.signal, 'abort')).toHaveLength(0);
      expect(left).toBe(0);
    });

    it('should leave no abort listener behind when a call fails', async () => {
      const parent = new AbortController();
      harness.server.script([reply.error(401, 'no'), reply.body('<html></html>', { contentType: 'text/html' })]);

      const left = await abortListenersLeftBy(async () => {
        await expect(chat({}, createSut(), parent.signal)).rejects.toThrow('401');
        await expect(chat({}, createSut(), parent.signal)).rejects.toThrow('text/html');
      });

      expect(getEventListeners(parent.signal, 'abort')).toHaveLength(0);
      expect(left).toBe(0);
    });
  });
});
