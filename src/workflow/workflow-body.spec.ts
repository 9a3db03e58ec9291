import { DomainError } from '../common/errors/domain-error';
import { normalizeWorkflowBody } from './workflow-body';

const definition = { name: 'w', nodes: [{ id: 'start', type: 'start' }] };

const problemsOf = (body: unknown): unknown => {
  try {
    normalizeWorkflowBody(body);
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    return (error as DomainError).problems;
  }
  throw new Error('expected a validation error');
};

describe(normalizeWorkflowBody.name, () => {
  it('takes a bare definition, with or without is_public', () => {
    expect(normalizeWorkflowBody(definition)).toEqual({ definition, isPublic: undefined, field: 'body' });
    expect(normalizeWorkflowBody({ ...definition, is_public: true })).toEqual({
      definition,
      isPublic: true,
      field: 'body',
    });
  });

  it('takes enabled in either shape and refuses one that is not a boolean, naming it', () => {
    expect(normalizeWorkflowBody({ ...definition, enabled: false })).toEqual({
      definition,
      enabled: false,
      field: 'body',
    });
    expect(normalizeWorkflowBody({ definition, enabled: true })).toMatchObject({ enabled: true, field: 'definition' });
    expect(problemsOf({ definition, enabled: 'no' })).toEqual([{ field: 'enabled', message: 'must be a boolean' }]);
  });

  it('takes {definition, is_public}', () => {
    expect(normalizeWorkflowBody({ definition, is_public: false })).toEqual({
      definition,
      isPublic: false,
      field: 'definition',
    });
  });

  it('reads a body with nodes as the definition even if it has a definition key', () => {
    const body = { ...definition, definition: 'x' };
    expect(normalizeWorkflowBody(body)).toEqual({ definition: body, isPublic: undefined, field: 'body' });
  });

  it('refuses a body that is not an object, naming the body', () => {
    for (const body of [undefined, null, 'x', [definition]]) {
      expect(problemsOf(body)).toEqual([{ field: 'body', message: 'must be a workflow definition object' }]);
    }
  });

  it('refuses a non-boolean is_public, naming it', () => {
    expect(problemsOf({ definition, is_public: 'yes' })).toEqual([
      { field: 'is_public', message: 'must be a boolean' },
    ]);
  });
});
