import { reply, type RecordedRequest } from '../support/openai-test-server';
import { waitFor } from '../support/wait-for';
import { mapPingWorkflow } from '../support/workflow-fixtures';
import { pingStackFixture } from '../support/workflow-stack';

type Message = { role: string; content?: string | null };

/** The item a nested LLM node's request is about (its prompt is `Ping <item>`). */
const itemOf = (request: RecordedRequest): string => {
  const messages = request.body.messages as Message[];
  const prompt = String(messages.find((message) => message.role === 'user')?.content);
  return prompt.replace(/^Ping /, '');
};

const answeredTool = (request: RecordedRequest): boolean =>
  (request.body.messages as Message[]).some((message) => message.role === 'tool');

describe('Replay of a map at concurrency > 1 (e2e)', () => {
  const stack = pingStackFixture();

  /** A map over `inputs.ids`, all at once: per item an LLM node that calls `ping` and answers. */
  const storeMapWorkflow = async (concurrency: number): Promise<string> => {
    const created = await stack.api
      .post('/workflows', mapPingWorkflow(`map-concurrent-replay-${Date.now().toString(36)}`, concurrency))
      .expect(201);
    return (created.body as { id: string }).id;
  };

  it('should reproduce a map of 4 items run 4 at once, each item answered with its own recorded answers', async () => {
    const ids = ['a', 'b', 'c', 'd'];
    const workflowId = await storeMapWorkflow(4);
    // Every item's model calls the tool (the same call id in each item, as many providers do), then answers about
    // its item. The tool answers the items in reverse order, so the items' second model calls are made in an order
    // a replay (tools answered at once, or live) does not repeat.
    stack.llm.script(
      Array.from({ length: ids.length * 2 }, () =>
        reply.from((request) =>
          answeredTool(request)
            ? reply.text(`pong ${itemOf(request)}`)
            : reply.toolCalls([{ name: 'ping', id: 'call_0', arguments: { id: itemOf(request) } }]),
        ),
      ),
    );
    stack.backend.hold();
    const started = stack.api
      .post(`/workflows/${workflowId}/runs?wait=true`, { inputs: { ids } })
      .expect(200)
      .then((response) => response);
    await waitFor(() => stack.backend.held.length === ids.length, { what: 'every item calling ping' });
    for (const id of [...ids].reverse()) {
      stack.backend.release(id);
      const answered = stack.llm.requests.length;
      await waitFor(() => stack.llm.requests.length > answered, { what: `item ${id} asking again` });
    }
    stack.backend.releaseAll();
    const run = (await started).body as { id: string; status: string; outputs: unknown };
    const answers = ids.map((id) => ({ answer: `pong ${id}` }));
    expect(run).toMatchObject({ status: 'succeeded', outputs: { answers } });
    const modelCalls = stack.llm.requests.length;

    for (const tools of ['recorded', 'live']) {
      const replayed = await stack.api.post(`/runs/${run.id}/replay`, { tools }).expect(200);
      expect(replayed.body).toMatchObject({
        reproduced: true,
        divergence: null,
        status: 'succeeded',
        outputs: { answers },
      });
    }
    expect(stack.llm.requests.length).toBe(modelCalls);

    // Its cassette names each call's item, and replays alike.
    const cassette = (await stack.api.get(`/runs/${run.id}/cassette`).expect(200)).body as {
      exchanges: Array<{ item?: string }>;
    };
    expect(cassette.exchanges.map((exchange) => exchange.item).sort()).toEqual([
      'each[0]',
      'each[0]',
      'each[1]',
      'each[1]',
      'each[2]',
      'each[2]',
      'each[3]',
      'each[3]',
    ]);
  });
});
