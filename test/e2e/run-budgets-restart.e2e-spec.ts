import { queryDatabase } from '../support/child-app';
import { reply } from '../support/openai-test-server';
import { ADMIN_KEY } from '../support/test-app';
import { restartFixture } from '../support/restart-fixture';
import { WorkflowApi } from '../support/workflow-api';
import { agentWorkflow, httpToolBody } from '../support/workflow-fixtures';

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const USAGE = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };

describe('Run budgets across a restart (e2e)', () => {
  const restart = restartFixture();

  it("should count a resumed run's tool calls, tokens and time on from its checkpoint, leaving out the time it was down", async () => {
    const { llm, backend, databaseUrl } = restart;
    const timeoutMs = 8000;
    llm.script([
      reply.toolCalls([{ name: 'ping', id: 'call_1', arguments: { id: 'before' } }], { usage: USAGE }),
      reply.text('Never delivered.', { delayMs: 60_000 }),
      reply.text('Never delivered either.', { delayMs: 60_000 }),
    ]);
    const first = await restart.startFirst();
    const before = new WorkflowApi(first.http, ADMIN_KEY);
    await before.createTool(httpToolBody('ping', `${backend.origin}/ping?id={id}`));
    const counted = await before
      .post('/workflow-runs', {
        definition: agentWorkflow({ tools: ['ping'] }),
        inputs: { question: 'Go' },
        max_tool_calls: 1,
      })
      .expect(202);
    const countedId = (counted.body as { id: string }).id;
    await before.waitForRun(countedId, () => llm.requests.length === 2);
    const timed = await before
      .post('/workflow-runs', { definition: agentWorkflow({}), inputs: { question: 'Slow' }, timeout_ms: timeoutMs })
      .expect(202);
    const timedId = (timed.body as { id: string }).id;
    const timedStarted = Date.parse(
      (await before.waitForRun(timedId, () => llm.requests.length === 3)).started_at ?? '',
    );

    await first.app.close();
    const stored = await queryDatabase<{ id: string; status: string }>(
      databaseUrl,
      'SELECT id, status FROM runs WHERE id IN (?, ?) ORDER BY created_at',
      [countedId, timedId],
    );
    expect(stored.map((row) => row.status)).toEqual(['running', 'running']);
    // The second process starts after the timed run's limit has passed since its first start: it executed for
    // less than that, the rest it was down.
    await pause(Math.max(0, timedStarted + timeoutMs - Date.now()));
    const afterRestart = reply.from((request) =>
      JSON.stringify(request.body.messages).includes('Slow')
        ? reply.text('In time.', { usage: USAGE })
        : reply.toolCalls([{ name: 'ping', id: 'call_2', arguments: { id: 'after' } }], { usage: USAGE }),
    );
    llm.script([afterRestart, afterRestart]);
    const second = await restart.startSecond();
    const after = new WorkflowApi(second.http, ADMIN_KEY);

    const countedRun = await after.waitForRun(countedId);
    const timedRun = await after.waitForRun(timedId);

    // One call before the restart counts: the resumed run may start none more.
    expect(countedRun).toMatchObject({
      status: 'failed',
      stop_reason: 'run_tool_call_budget',
      usage: { total_tokens: 30, model_calls: 2 },
    });
    expect(backend.hits.map((hit) => hit.params.id)).toEqual(['before']);
    // The timed run's model call before the restart was never answered; resumed with the time it had left, it
    // asks again and finishes.
    expect(timedRun).toMatchObject({
      status: 'succeeded',
      stop_reason: 'completed',
      outputs: { answer: 'In time.' },
      usage: { model_calls: 1 },
    });
    expect(llm.requests).toHaveLength(5);
    // Two app starts on a loaded machine, and the timed run's limit to wait out.
  }, 120_000);
});
