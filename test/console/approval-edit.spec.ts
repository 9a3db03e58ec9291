import { problemsBesideFields, refusalOf, unchangedProblems, valueAt } from '../../console/src/lib/approval-edit';

describe(refusalOf.name, () => {
  it('should keep the arguments as sent and each argument’s problem by its path', () => {
    const refusal = refusalOf('{"amount":500}', [
      { field: 'arguments.amount', message: 'must be <= 100' },
      { field: 'arguments', message: 'must not have additional properties' },
    ]);
    expect(refusal).toEqual({ arguments: '{"amount":500}', problems: { amount: 'must be <= 100' } });
  });
});

describe(unchangedProblems.name, () => {
  const refusal = {
    arguments: '{"amount":500,"order":{"id":"x"}}',
    problems: { amount: 'must be <= 100', 'order.id': 'bad' },
  };

  it('should show a problem while its field holds the refused value', () => {
    expect(unchangedProblems(refusal, { amount: 500, order: { id: 'x' } })).toEqual(refusal.problems);
  });

  it('should drop a problem once its field changed, even back to a value never refused', () => {
    expect(unchangedProblems(refusal, { amount: 80, order: { id: 'x' } })).toEqual({ 'order.id': 'bad' });
  });

  it('should show nothing before any refusal', () => {
    expect(unchangedProblems(null, { amount: 500 })).toEqual({});
  });
});

describe(valueAt.name, () => {
  it('should follow dotted paths through objects and arrays', () => {
    expect(valueAt({ a: { b: [1, 2] } }, 'a.b.1')).toBe(2);
    expect(valueAt({ a: null }, 'a.b')).toBeUndefined();
  });
});

describe(problemsBesideFields.name, () => {
  const problems = [
    { field: 'arguments.amount', message: 'must be <= 100' },
    { field: 'arguments.extra', message: 'is not a property' },
    { field: 'arguments', message: 'is wrong as a whole' },
  ];

  it('should leave out what the edit form shows at a field', () => {
    expect(problemsBesideFields(problems, ['amount'], true)).toEqual(problems.slice(1));
  });

  it('should keep every problem when the form is not open', () => {
    expect(problemsBesideFields(problems, ['amount'], false)).toEqual(problems);
  });
});
