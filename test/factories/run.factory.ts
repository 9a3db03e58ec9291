import type { Principal } from '../../src/common/auth/principal';
import type { NewRun } from '../../src/runs/runs.service';
import type { RunDefinition } from '../../src/runs/run-definition';

/** start → end, enough for a run record; the workflow fields runs/ does not read ride along as stored JSON. */
export const trivialDefinition = (): RunDefinition => {
  const definition = {
    name: 'trivial',
    nodes: [
      { id: 'start', type: 'start', data: {} },
      { id: 'end', type: 'end', data: { outputs: {} } },
    ],
    edges: [{ source: 'start', target: 'end' }],
  };
  return definition;
};

export const newRun = (overrides: Partial<NewRun> = {}): NewRun => ({
  definition: trivialDefinition(),
  inputs: {},
  userId: 'user-1',
  userRole: 'user',
  ...overrides,
});

export const userPrincipal = (userId = 'user-1'): Principal => ({ userId, role: 'user', keyId: `key-${userId}` });
export const adminPrincipal = (): Principal => ({ userId: 'admin', role: 'admin', keyId: 'key-admin' });
