import { ownerLabel } from '../../console/src/lib/owners';
import { workflowLabel } from '../../console/src/lib/workflow-label';

describe('ownerLabel', () => {
  const keys = { 'u-alice': ['alice-laptop', 'alice-ci'], 'u-bob': ['bob-ci'] };

  it("should name an owner by its keys' names, all of them", () => {
    expect(ownerLabel('u-alice', keys)).toBe('alice-laptop, alice-ci');
    expect(ownerLabel('u-bob', keys)).toBe('bob-ci');
  });

  it('should fall back to the user id when no key name is known, and say "shared" for no owner', () => {
    expect(ownerLabel('u-carol', keys)).toBe('u-carol');
    expect(ownerLabel(null, keys)).toBe('shared');
  });
});

describe('workflowLabel', () => {
  it('should name a stored workflow with the version the run pinned', () => {
    expect(workflowLabel({ workflow_id: 'a1b2c3d4-0000', workflow_name: 'refunds', workflow_version: 3 })).toBe(
      'refunds v3',
    );
  });

  it("should show an id's first characters only when the run has no name, and mark inline runs", () => {
    expect(workflowLabel({ workflow_id: 'a1b2c3d4-0000', workflow_name: null, workflow_version: 2 })).toBe(
      'a1b2c3d4 v2',
    );
    expect(workflowLabel({ workflow_id: null, workflow_name: 'scratch', workflow_version: null })).toBe(
      'scratch (inline)',
    );
  });
});
