import { costText } from '../../console/src/lib/cost';
import { applyEvent } from '../../console/src/lib/run-trace';
import type { TraceEvent } from '../../console/src/lib/run-events';
import { timelineRows } from '../../console/src/lib/timeline';
import { emptyTrace } from '../../console/src/lib/trace-state';

const at = (second: number) => `2026-12-01T10:00:0${second}.000Z`;
const fold = (events: TraceEvent[]) => events.reduce(applyEvent, emptyTrace());

describe('applyEvent (approvals)', () => {
  const calling: TraceEvent[] = [
    { type: 'run.started', data: { at: at(0) } },
    { type: 'node.started', data: { node_id: 'llm-1', node_type: 'llm', at: at(0) } },
    { type: 'tool.call', data: { node_id: 'llm-1', call_id: 'call_1', name: 'issue_refund', at: at(1) } },
    {
      type: 'approval.requested',
      data: {
        approval_id: 'ap-1',
        node_id: 'llm-1',
        call_id: 'call_1',
        tool: 'issue_refund',
        arguments: { amount: 80 },
        at: at(2),
      },
    },
  ];

  it('should mark the run and its tool call waiting while the approval is pending', () => {
    const state = fold(calling);

    expect(state.status).toBe('waiting');
    expect(state.nodes[0].modelCalls[0].toolCalls[0].status).toBe('waiting');
    expect(state.approvals).toEqual([
      { id: 'ap-1', nodeId: 'llm-1', toolName: 'issue_refund', arguments: { amount: 80 }, status: 'pending' },
    ]);
  });

  it('should resume both on approval and let the tool result set the final status', () => {
    const state = fold([
      ...calling,
      {
        type: 'approval.resolved',
        data: { approval_id: 'ap-1', node_id: 'llm-1', call_id: 'call_1', decision: 'approve', at: at(3) },
      },
    ]);

    expect(state.status).toBe('running');
    expect(state.approvals[0].status).toBe('approved');
    expect(state.nodes[0].modelCalls[0].toolCalls[0].status).toBe('running');

    applyEvent(state, {
      type: 'tool.result',
      data: { node_id: 'llm-1', call_id: 'call_1', status: 'success', response: '{}', duration_ms: 5, at: at(4) },
    });
    expect(state.nodes[0].modelCalls[0].toolCalls[0].status).toBe('success');
  });

  it('should show the node waiting and a timeline bar that starts with the wait and does not grow', () => {
    const state = fold(calling);
    const toolCall = state.nodes[0].modelCalls[0].toolCalls[0];

    expect(state.nodes[0].status).toBe('waiting');
    expect(toolCall.waitingSince).toBe(Date.parse(at(2)));
    // Five minutes later the waiting call has still not executed for a single millisecond.
    const row = timelineRows(state, Date.parse(at(2)) + 305_865).find((candidate) => candidate.kind === 'tool');
    expect(row).toMatchObject({ status: 'waiting', start: 2000, end: 2000 });
  });

  it("should show the arguments that ran, marked as edited, with the model's kept", () => {
    const state = fold([
      ...calling.slice(0, 3),
      { type: 'tool.args.delta', data: { node_id: 'llm-1', call_id: 'call_1', delta: '{"amount": 80}', at: at(1) } },
      ...calling.slice(3),
      {
        type: 'approval.resolved',
        data: {
          approval_id: 'ap-1',
          node_id: 'llm-1',
          call_id: 'call_1',
          decision: 'approve',
          arguments: { amount: 50 },
          decided_by: 'user-id',
          decided_key_name: 'ops-desk',
          at: at(4),
        },
      },
    ]);
    const toolCall = state.nodes[0].modelCalls[0].toolCalls[0];

    expect(state.nodes[0].status).toBe('running');
    expect(toolCall).toMatchObject({
      args: '{"amount":50}',
      modelArgs: '{"amount": 80}',
      editedBy: 'ops-desk',
      editedAt: Date.parse(at(4)),
      waitingSince: null,
    });
  });

  it("should not mark arguments edited when the approval sent the model's own", () => {
    const state = fold([
      ...calling.slice(0, 3),
      { type: 'tool.args.delta', data: { node_id: 'llm-1', call_id: 'call_1', delta: '{"amount": 80}', at: at(1) } },
      ...calling.slice(3),
      {
        type: 'approval.resolved',
        data: {
          approval_id: 'ap-1',
          node_id: 'llm-1',
          call_id: 'call_1',
          decision: 'approve',
          arguments: { amount: 80 },
          at: at(4),
        },
      },
    ]);
    expect(state.nodes[0].modelCalls[0].toolCalls[0]).toMatchObject({ modelArgs: null, editedBy: null });
  });

  it('should record a rejection and end the call, which will not run', () => {
    const state = fold([
      ...calling,
      {
        type: 'approval.resolved',
        data: { approval_id: 'ap-1', node_id: 'llm-1', call_id: 'call_1', decision: 'reject', at: at(3) },
      },
    ]);

    expect(state.approvals[0].status).toBe('rejected');
    expect(state.nodes[0].modelCalls[0].toolCalls[0]).toMatchObject({ status: 'rejected', endedAt: Date.parse(at(3)) });
  });
});

describe('applyEvent (context notes)', () => {
  it('should note a trimmed context and lost embeddings on the model call they came before', () => {
    const state = fold([
      { type: 'run.started', data: { at: at(0) } },
      { type: 'node.started', data: { node_id: 'llm-1', node_type: 'llm', at: at(0) } },
      { type: 'llm.usage', data: { node_id: 'llm-1', usage: { total_tokens: 9 }, at: at(1) } },
      {
        type: 'llm.embeddings_failed',
        data: { node_id: 'llm-1', stage: 'query', message: 'embeddings 404: model not found', at: at(2) },
      },
      {
        type: 'llm.context_trimmed',
        data: {
          node_id: 'llm-1',
          iteration: 2,
          context_window: 8192,
          tokens_before: 12000,
          tokens_after: 7900,
          shortened_results: 3,
          dropped_messages: 1,
          at: at(2),
        },
      },
      { type: 'llm.delta', data: { node_id: 'llm-1', delta: 'Done.', at: at(3) } },
    ]);

    const [first, second] = state.nodes[0].modelCalls;
    expect(first.notes).toEqual([]);
    expect(second.notes).toEqual([
      'tool selection without embeddings from here on (query: embeddings 404: model not found)',
      'context trimmed to fit 8192 tokens: 12000 → 7900 tokens (3 older tool results shortened, 1 message left out)',
    ]);
    expect(second.text).toBe('Done.');
  });
});

describe('applyEvent (structured output)', () => {
  it('should note an answer sent back against output_schema on the model call that wrote it', () => {
    const state = fold([
      { type: 'run.started', data: { at: at(0) } },
      { type: 'node.started', data: { node_id: 'llm-1', node_type: 'llm', at: at(0) } },
      { type: 'llm.delta', data: { node_id: 'llm-1', delta: '{"town":"Paris"}', at: at(1) } },
      { type: 'llm.usage', data: { node_id: 'llm-1', usage: { total_tokens: 9 }, at: at(1) } },
      {
        type: 'llm.output_retry',
        data: { node_id: 'llm-1', attempt: 1, errors: ['/city: is required but missing'], at: at(2) },
      },
      { type: 'llm.delta', data: { node_id: 'llm-1', delta: '{"city":"Paris"}', at: at(3) } },
    ]);

    const [first, second] = state.nodes[0].modelCalls;
    expect(first.notes).toEqual(['answer sent back (retry 1): /city: is required but missing']);
    expect(second.text).toBe('{"city":"Paris"}');
  });
});

describe('applyEvent (cost)', () => {
  it("should keep each model call's cost as llm.usage says it, unknown included", () => {
    const state = fold([
      { type: 'run.started', data: { at: at(0) } },
      { type: 'node.started', data: { node_id: 'llm-1', node_type: 'llm', at: at(0) } },
      {
        type: 'llm.usage',
        data: { node_id: 'llm-1', usage: { total_tokens: 9 }, cost: { amount: 0.0022, currency: 'USD' }, at: at(1) },
      },
      { type: 'llm.delta', data: { node_id: 'llm-1', delta: 'Done.', at: at(2) } },
      { type: 'llm.usage', data: { node_id: 'llm-1', usage: { total_tokens: 9 }, cost: null, at: at(3) } },
    ]);

    const [first, second] = state.nodes[0].modelCalls;
    expect(costText(first.cost)).toBe('0.0022 USD');
    expect(costText(second.cost)).toBe('cost unknown');
  });

  it('should show nothing for a call whose event says no cost, and never 0 for an unknown one', () => {
    expect(costText(undefined)).toBe('');
    expect(costText(null)).toBe('cost unknown');
    expect(costText({ amount: 0.1 + 0.2, currency: 'EUR' })).toBe('0.3 EUR');
  });
});

describe('applyEvent (repaired calls)', () => {
  it('should show a call recovered from the text as a repaired call and drop the raw call from the text', () => {
    const raw = '{"name": "lookup", "arguments": {"id": "t"}}';
    const state = fold([
      { type: 'run.started', data: { at: at(0) } },
      { type: 'node.started', data: { node_id: 'llm-1', node_type: 'llm', at: at(0) } },
      { type: 'llm.delta', data: { node_id: 'llm-1', delta: raw, at: at(1) } },
      {
        type: 'tool.call',
        data: { node_id: 'llm-1', call_id: 'call_0', name: 'lookup', repair: { kind: 'json_answer' }, at: at(2) },
      },
      { type: 'tool.args.delta', data: { node_id: 'llm-1', call_id: 'call_0', delta: '{"id":"t"}', at: at(2) } },
      {
        type: 'llm.usage',
        data: {
          node_id: 'llm-1',
          usage: { total_tokens: 9 },
          repair: { kind: 'json_answer', call_ids: ['call_0'], text: '' },
          at: at(2),
        },
      },
      {
        type: 'tool.result',
        data: {
          node_id: 'llm-1',
          call_id: 'call_0',
          name: 'lookup',
          status: 'success',
          repair: { kind: 'json_answer' },
          at: at(3),
        },
      },
    ]);

    const [modelCall] = state.nodes[0].modelCalls;
    expect(modelCall.text).toBe('');
    expect(modelCall.toolCalls).toEqual([
      expect.objectContaining({ callId: 'call_0', args: '{"id":"t"}', repaired: true, repairKind: 'json_answer' }),
    ]);
  });

  it('should mark a call whose arguments were repaired', () => {
    const state = fold([
      { type: 'node.started', data: { node_id: 'llm-1', node_type: 'llm', at: at(0) } },
      { type: 'tool.call', data: { node_id: 'llm-1', call_id: 'c', name: 'lookup', at: at(1) } },
      { type: 'tool.result', data: { node_id: 'llm-1', call_id: 'c', status: 'success', repaired: true, at: at(2) } },
    ]);

    expect(state.nodes[0].modelCalls[0].toolCalls[0]).toMatchObject({ repaired: true, repairKind: 'arguments' });
  });
});
