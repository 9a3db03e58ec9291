import { scriptedProvider } from '../../test/factories/scripted-provider.factory';
import type { ChatResponse } from '../llm/provider';
import type { ToolCall } from '../shared/tool-types';
import type { ExecuteTool } from './agent-loop-options';
import {
  type AgentLoopCheckpoint,
  type ApprovalDecision,
  type ApprovalGate,
  AwaitingApprovalError,
  runAgentLoop,
} from './agent-loop';

const schema = (name: string) => ({
  type: 'function' as const,
  function: { name, parameters: { type: 'object', properties: { q: { type: 'string' } } } },
});
const tools = [
  { schema: schema('search'), effect: 'read_only' as const },
  { schema: schema('wipe'), effect: 'dangerous' as const },
  { schema: schema('write'), effect: 'mutating' as const },
];
const call = (id: string, name: string, q: string): ToolCall => ({ id, name, arguments: JSON.stringify({ q }) });

/** A gate that holds `wipe` calls until `decide` answers them. */
const gateFor = () => {
  const decisions = new Map<string, ApprovalDecision>();
  const asked: string[] = [];
  const gate: ApprovalGate = {
    check: (toolCall) => {
      if (toolCall.name !== 'wipe') return Promise.resolve(null);
      asked.push(toolCall.id);
      return Promise.resolve(decisions.get(toolCall.id) ?? 'pending');
    },
  };
  return { gate, asked, decide: (id: string, decision: ApprovalDecision) => decisions.set(id, decision) };
};

const setup = (script: Array<Partial<ChatResponse>>, gate: ApprovalGate, resume?: AgentLoopCheckpoint) => {
  const { provider, requests } = scriptedProvider(script);
  const executed: ToolCall[] = [];
  const unrun: Array<[string, string]> = [];
  const states: AgentLoopCheckpoint[] = [];
  const executeTool: ExecuteTool = (toolCall) => {
    executed.push(toolCall);
    return Promise.resolve({
      call: toolCall,
      toolName: toolCall.name,
      status: 'success',
      response: `${toolCall.name} done`,
    });
  };
  const run = () =>
    runAgentLoop({
      provider,
      model: 'm',
      messages: [{ role: 'user', content: 'Clean up.' }],
      tools,
      executeTool,
      approvals: gate,
      resume,
      onCheckpoint: (state) => {
        states.push(structuredClone(state));
        return Promise.resolve();
      },
      onUnrunCall: (toolCall, status) => {
        unrun.push([toolCall.id, status]);
        return Promise.resolve();
      },
    });
  return { run, requests, executed, unrun, states };
};

describe(`${runAgentLoop.name} approvals`, () => {
  const round = { toolCalls: [call('c1', 'search', 'a'), call('c2', 'wipe', 'b'), call('c3', 'write', 'c')] };

  it('should answer the calls that need no approval, store the waiting one as pending and stop before the next model call', async () => {
    const { gate } = gateFor();
    const first = setup([round], gate);

    await expect(first.run()).rejects.toBeInstanceOf(AwaitingApprovalError);

    expect(first.executed.map((item) => item.id)).toEqual(['c1', 'c3']);
    expect(first.requests).toHaveLength(1);
    const stored = first.states.at(-1) as AgentLoopCheckpoint;
    expect(stored.round?.calls.map((item) => [item.approval ?? null, item.answer?.status ?? null])).toEqual([
      [null, 'success'],
      ['pending', null],
      [null, 'success'],
    ]);
  });

  it('should stay waiting on a resume while the decision is not made, running nothing again', async () => {
    const { gate } = gateFor();
    const first = setup([round], gate);
    await expect(first.run()).rejects.toBeInstanceOf(AwaitingApprovalError);

    const again = setup([], gate, first.states.at(-1));
    await expect(again.run()).rejects.toBeInstanceOf(AwaitingApprovalError);

    expect(again.executed).toEqual([]);
    expect(again.requests).toHaveLength(0);
  });

  it('should run an approved call with the edited arguments in place of the model’s, then call the model with every answer in call order', async () => {
    const { gate, decide } = gateFor();
    const first = setup([round], gate);
    await expect(first.run()).rejects.toBeInstanceOf(AwaitingApprovalError);
    decide('c2', { approved: true, arguments: '{"q":"edited"}' });

    const resumed = setup([{ content: 'Cleaned.' }], gate, first.states.at(-1));
    const result = await resumed.run();

    expect(resumed.executed).toEqual([{ id: 'c2', name: 'wipe', arguments: '{"q":"edited"}' }]);
    expect(result.output).toBe('Cleaned.');
    const answers = resumed.requests[0].messages.filter((message) => message.role === 'tool');
    expect(answers.map((message) => [message.tool_call_id, message.content])).toEqual([
      ['c1', 'search done'],
      ['c2', 'wipe done'],
      ['c3', 'write done'],
    ]);
    expect(result.toolCalls.find((record) => record.id === 'c2')?.arguments).toBe('{"q":"edited"}');
  });

  it('should store an approved call as approved before it starts, so that a crash while it runs does not repeat it', async () => {
    const { gate, decide } = gateFor();
    const first = setup([round], gate);
    await expect(first.run()).rejects.toBeInstanceOf(AwaitingApprovalError);
    decide('c2', { approved: true });
    const controller = new AbortController();
    const states: AgentLoopCheckpoint[] = [];
    const dying = runAgentLoop({
      provider: scriptedProvider([]).provider,
      model: 'm',
      messages: [],
      tools,
      executeTool: () => new Promise<never>(() => controller.abort(new Error('process died'))),
      approvals: gate,
      resume: first.states.at(-1),
      signal: controller.signal,
      onCheckpoint: (state) => {
        states.push(structuredClone(state));
        return Promise.resolve();
      },
    });
    await expect(dying).rejects.toMatchObject({ stopReason: 'cancelled' });
    const approved = states.at(-1) as AgentLoopCheckpoint;
    expect(approved.round?.calls[1]).toMatchObject({ approval: 'approved' });

    const after = setup([{ content: 'Maybe wiped.' }], gate, approved);
    const result = await after.run();

    expect(after.executed).toEqual([]);
    expect(after.unrun).toEqual([['c2', 'unknown_outcome']]);
    expect(result.toolCalls.map((record) => record.status)).toEqual(['success', 'unknown_outcome', 'success']);
  });

  it('should answer a rejected call with the rejection text, record it as rejected and go on', async () => {
    const { gate, decide } = gateFor();
    const first = setup([round], gate);
    await expect(first.run()).rejects.toBeInstanceOf(AwaitingApprovalError);
    decide('c2', { approved: false, response: 'Rejected: not on Fridays' });

    const resumed = setup([{ content: 'I will not wipe.' }], gate, first.states.at(-1));
    const result = await resumed.run();

    expect(resumed.executed).toEqual([]);
    expect(resumed.unrun).toEqual([['c2', 'rejected']]);
    const answer = resumed.requests[0].messages.find(
      (message) => message.role === 'tool' && message.tool_call_id === 'c2',
    );
    expect(answer).toMatchObject({ content: 'Rejected: not on Fridays', is_error: true });
    expect(result.toolCalls.map((record) => record.status)).toEqual(['success', 'rejected', 'success']);
  });

  it('should not repeat a mutating call that was executing while another call of the round waited', async () => {
    const { gate, decide } = gateFor();
    const controller = new AbortController();
    const states: AgentLoopCheckpoint[] = [];
    const dying = runAgentLoop({
      provider: scriptedProvider([round]).provider,
      model: 'm',
      messages: [{ role: 'user', content: 'Clean up.' }],
      tools,
      executeTool: (toolCall) =>
        toolCall.name === 'write'
          ? new Promise<never>(() => controller.abort(new Error('process died')))
          : Promise.resolve({ call: toolCall, toolName: toolCall.name, status: 'success', response: 'ok' }),
      approvals: gate,
      signal: controller.signal,
      onCheckpoint: (state) => {
        states.push(structuredClone(state));
        return Promise.resolve();
      },
    });
    await expect(dying).rejects.toMatchObject({ stopReason: 'cancelled' });
    decide('c2', { approved: true });

    const resumed = setup([{ content: 'Done.' }], gate, states.at(-1));
    const result = await resumed.run();

    expect(resumed.executed.map((item) => item.id)).toEqual(['c2']);
    expect(result.toolCalls.map((record) => record.status)).toEqual(['success', 'success', 'unknown_outcome']);
  });

  it('should run a waiting call the gate no longer holds, answering the model with every call in call order', async () => {
    const { gate } = gateFor();
    const first = setup([round], gate);
    await expect(first.run()).rejects.toBeInstanceOf(AwaitingApprovalError);
    // On the resume the gate asks no decision for the waiting call any more.
    const released: ApprovalGate = { check: () => Promise.resolve(null) };

    const resumed = setup([{ content: 'Cleaned.' }], released, first.states.at(-1));
    const result = await resumed.run();

    expect(resumed.executed.map((item) => item.id)).toEqual(['c2']);
    expect(result.output).toBe('Cleaned.');
    const answers = resumed.requests[0].messages.filter((message) => message.role === 'tool');
    expect(answers.map((message) => message.tool_call_id)).toEqual(['c1', 'c2', 'c3']);
    // Stored as cleared to run before it ran, as an approved call is: a crash while it runs does not repeat it.
    expect(resumed.states[0].round?.calls[1]).toMatchObject({ approval: 'approved' });
  });
});
