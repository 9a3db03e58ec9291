import type { Principal } from '../../src/common/auth/principal';
import type { NewRun } from '../../src/runs/runs.service';
import type { WorkflowDefinition } from '../../src/workflow/definition.types';

/** start → end, enough for a run record. */
export const trivialDefinition = (): WorkflowDefinition =>
  ({
    name: 'trivial',
    nodes: [
      { id: 'start', type: 'start', data: {} },
      { id: 'end', type: 'end', data: { outputs: {} } },
    ],
    edges: [{ source: 'start', target: 'end' }],
  }) as unknown as WorkflowDefinition;

export const newRun = (overrides: Partial<NewRun> = {}): NewRun => ({
  definition: trivialDefinition(),
  inputs: {},
  userId: 'user-1',
  ...overrides,
});

export const userPrincipal = (userId = 'user-1'): Principal => ({ userId, role: 'user', keyId: `key-${userId}` });
export const adminPrincipal = (): Principal => ({ userId: 'admin', role: 'admin', keyId: 'key-admin' });
