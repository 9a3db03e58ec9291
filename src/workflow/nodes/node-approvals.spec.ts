import type { ToolCalls } from '../../executors/tool-calls.service';
import type { ApprovalsService } from '../../runs/approvals.service';
import type { WorkflowNode } from '../definition.schema';
import type { RunContext } from '../execution/run-context';
import type { NodeStep } from '../execution/run-checkpointer';
import { approvalGateFor, NO_APPROVAL_RESPONSE, rejectedResponse } from './node-approvals';
import type { NodeServices } from './node-handler';

const call = { id: 'call_0', name: 'wipe', arguments: '{"target":"db","api_key":"sk-1"}' };
const node = { id: 'llm-1', type: 'llm', data: { prompt: 'Wipe.' } } as WorkflowNode;

describe(approvalGateFor.name, () => {
  const emitted: Array<[string, Record<string, unknown>]> = [];
  const run = {
    runId: 'run-1',
    principal: { userId: 'owner', role: 'user', keyId: 'k' },
    emit: (type: string, data: Record<string, unknown>) => emitted.push([type, data]),
  } as unknown as RunContext;
  const step: NodeStep = { state: undefined, save: () => Promise.resolve() };
  const toolCalls = {
    approvalRequestFor: (toolCall: { name: string }) =>
      toolCall.name === 'wipe'
        ? { arguments: { target: 'db', api_key: 'sk-1' }, parameters: { type: 'object' } }
        : null,
  } as unknown as ToolCalls;

  const services = (request: ApprovalsService['request']): NodeServices =>
    ({ toolCalls, approvals: { request } }) as unknown as NodeServices;

  beforeEach(() => (emitted.length = 0));

  it('should let a call that needs no approval through', async () => {
    const request = jest.fn();
    const gate = approvalGateFor({ node, step, run, services: services(request) }, []);

    await expect(gate.check({ ...call, name: 'search' })).resolves.toBeNull();
    expect(request).not.toHaveBeenCalled();
  });

  it('should answer a call unrun, saying why, where the run cannot wait (a workflow used as a tool has no step)', async () => {
    const request = jest.fn();
    const gate = approvalGateFor({ node, step: undefined, run, services: services(request) }, []);

    await expect(gate.check(call)).resolves.toEqual({ approved: false, response: NO_APPROVAL_RESPONSE });
    expect(request).not.toHaveBeenCalled();
  });

  it('should record the request, emit approval.requested once with masked arguments, and map each decision', async () => {
    const states = [
      { id: 'a1', created: true, status: 'pending', decidedArguments: null, comment: null },
      { id: 'a1', created: false, status: 'approved', decidedArguments: { target: 'copy' }, comment: null },
      { id: 'a1', created: false, status: 'rejected', decidedArguments: null, comment: 'Not "db".' },
    ];
    const request = jest.fn(() => Promise.resolve(states.shift())) as unknown as ApprovalsService['request'];
    const gate = approvalGateFor({ node, step, run, services: services(request) }, []);

    await expect(gate.check(call)).resolves.toBe('pending');
    await expect(gate.check(call)).resolves.toEqual({ approved: true, arguments: '{"target":"copy"}' });
    await expect(gate.check(call)).resolves.toEqual({
      approved: false,
      response: rejectedResponse('wipe', 'Not "db".'),
    });

    expect(emitted).toEqual([
      [
        'approval.requested',
        {
          approval_id: 'a1',
          node_id: 'llm-1',
          call_id: 'call_0',
          tool: 'wipe',
          arguments: { target: 'db', api_key: '********' },
        },
      ],
    ]);
    expect(rejectedResponse('wipe', 'Not "db".')).toContain('Their comment: Not "db".');
  });
});
