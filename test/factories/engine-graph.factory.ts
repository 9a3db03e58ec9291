import { Type } from '@sinclair/typebox';
import type { WorkflowDefinition, WorkflowNode } from '../../src/workflow/definition.schema';
import type { NodeRecorder } from '../../src/workflow/execution/engine';
import type { NodeHandler } from '../../src/workflow/nodes/node-handler';
import type { NodeHandlers } from '../../src/workflow/nodes/node-handlers';

/** The data of the fake nodes: a value (value, decide) or the node ids whose output an end node returns. */
export type Data = { value?: unknown; outputs?: string[] };

/** A fake node type: what it does is visible in the test, no model or tool involved. */
export const handler = (run: NodeHandler['run'], flags: Partial<NodeHandler> = {}): NodeHandler => ({
  data: Type.Any(),
  output: () => ({}),
  run,
  ...flags,
});
/** Fake node types for engine tests: start, value, decide (branches on its value), fail and end. */
export const fakeHandlers = {
  start: handler(({ scope }) => Promise.resolve({ output: scope.inputs }), { entry: true }),
  value: handler(({ data }) => Promise.resolve({ output: (data as Data).value })),
  decide: handler(({ data }) => Promise.resolve({ output: (data as Data).value }), { branches: true }),
  fail: handler(() => Promise.reject(new Error('backend said no'))),
  end: handler(
    ({ data, scope }) =>
      Promise.resolve({
        outputs: Object.fromEntries(
          ((data as Data).outputs ?? []).map((id) => [
            id,
            (scope[id] as { output?: unknown } | undefined)?.output ?? null,
          ]),
        ),
      }),
    { exit: true },
  ),
} as unknown as NodeHandlers;

export const node = (id: string, type: string, data: Data = {}) => ({ id, type, data }) as unknown as WorkflowNode;
export const edge = (source: string, target: string, condition?: boolean) =>
  condition === undefined ? { source, target } : { source, target, condition };

export const definition = (nodes: WorkflowNode[], edges: ReturnType<typeof edge>[]) =>
  ({ name: 'graph', nodes, edges }) as unknown as WorkflowDefinition;

export type RecordedNode = { node: string; status?: string; error?: string };

/** A node recorder that keeps, in order, each node run it is told about and how it ended. */
export function recordingRecorder(recorded: RecordedNode[]): NodeRecorder {
  return {
    nodeStarted: (_runId, started) => {
      recorded.push({ node: started.id });
      return Promise.resolve(String(recorded.length - 1));
    },
    runningNodeRun: () => Promise.resolve(null),
    nodeFinished: (nodeRunId, result) => {
      Object.assign(recorded[Number(nodeRunId)], { status: result.status, error: result.error });
      return Promise.resolve();
    },
    nodeEnded: (_runId, ended) => {
      for (const { node: pure, result } of ended)
        recorded.push({ node: pure.id, status: result.status, error: result.error });
      return Promise.resolve();
    },
    hasNodeRun: () => Promise.resolve(false),
  };
}
