import type { ToolCallRecord } from './call-record';
import { unloggedCalls } from './unlogged-calls';

const call = (nodeId: string, callId: string, output = 'ok'): ToolCallRecord => ({
  toolId: null,
  toolName: 'lookup',
  toolVersion: null,
  runId: 'run-1',
  nodeId,
  callId,
  userId: 'user-1',
  input: '{}',
  output,
  status: 'success',
  errorMessage: null,
  durationMs: 1,
  startedAt: new Date(0),
});

describe(unloggedCalls.name, () => {
  it('should keep the calls that have no row', () => {
    const calls = [call('llm-1', 'a'), call('llm-1', 'b'), call('llm-2', 'a')];

    expect(unloggedCalls(calls, [{ nodeId: 'llm-1', callId: 'a' }])).toEqual([calls[1], calls[2]]);
  });

  it('should keep nothing when every call has its row', () => {
    const calls = [call('llm-1', 'a'), call('llm-1', 'b')];

    expect(unloggedCalls(calls, calls)).toEqual([]);
  });

  it('should count calls of one node with the same id: the rows stand for the first of them', () => {
    const calls = [
      call('llm-1', 'call_0', 'first'),
      call('llm-1', 'call_0', 'second'),
      call('llm-1', 'call_0', 'third'),
    ];

    expect(unloggedCalls(calls, [{ nodeId: 'llm-1', callId: 'call_0' }])).toEqual([calls[1], calls[2]]);
  });
});
