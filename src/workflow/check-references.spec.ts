import { nodeCheckContext } from '../../test/factories/node-check-context.factory';
import type { FieldProblem } from '../common/errors/domain-error';
import { analyzeDefinition } from './validate-definition';

type Node = { id: string; type: string; data: Record<string, unknown> };

/** start → t_add (tool) → llm-1 → check (condition) → end, with the references under test in `refs`. */
const definition = (refs: { llm?: string; tool?: Record<string, unknown>; end?: Record<string, unknown> } = {}) => ({
  name: 'demo',
  inputs: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
  nodes: <Node[]>[
    { id: 'start', type: 'start', data: {} },
    { id: 't_add', type: 'tool', data: { tool: 'add', arguments: refs.tool ?? { a: '{{inputs.a}}' } } },
    { id: 'llm-1', type: 'llm', data: { prompt: refs.llm ?? 'Sum: {{t_add.data.sum}}' } },
    {
      id: 'check',
      type: 'condition',
      data: { conditions: [{ left: '{{t_add.data.sum}}', op: 'greater_than', right: 12 }] },
    },
    { id: 'end', type: 'end', data: { outputs: refs.end ?? { answer: '{{llm-1.text}}' } } },
  ],
  edges: [
    { source: 'start', target: 't_add' },
    { source: 't_add', target: 'llm-1' },
    { source: 'llm-1', target: 'check' },
    { source: 'check', target: 'end', condition: true },
  ],
});

const analyze = (input: unknown) => analyzeDefinition(input, nodeCheckContext());
const only = (problems: FieldProblem[]) => {
  expect(problems).toHaveLength(1);
  return problems[0];
};

describe('reference checks', () => {
  it('should accept references that the output shapes have', () => {
    const sut = analyze(
      definition({ llm: '{{inputs.a}} {{start.b}} {{t_add.status}} {{t_add.data.rows[0].x}} {{t_add.output.length}}' }),
    );
    expect(sut.problems).toEqual([]);
    expect(sut.warnings).toEqual([]);
  });

  it('should refuse a path into a tool node that cannot exist and point at the string, suggesting data', () => {
    const sut = only(analyze(definition({ end: { sum: '{{t_add.output.sum}}' } })).problems);
    expect(sut).toEqual({
      field: 'nodes[4](end).data.outputs.sum',
      pointer: '/nodes/4/data/outputs/sum',
      message:
        '{{t_add.output.sum}}: t_add.output is a string and has no field "sum"; did you mean {{t_add.data.sum}}?',
      suggestion: '{{t_add.data.sum}}',
    });
  });

  it('should refuse an unknown node and suggest the closest id', () => {
    const sut = only(analyze(definition({ tool: { a: '{{t-add.data.sum}}' } })).problems);
    expect(sut).toMatchObject({
      pointer: '/nodes/1/data/arguments/a',
      message: '{{t-add.data.sum}}: there is no node "t-add"; did you mean {{t_add.data.sum}}?',
    });
  });

  it('should refuse a reference to a node that does not run before', () => {
    const sut = only(analyze(definition({ tool: { a: '{{llm-1.text}}' } })).problems);
    expect(sut).toMatchObject({
      pointer: '/nodes/1/data/arguments/a',
      message: '{{llm-1.text}}: node "llm-1" does not run before this node',
    });
  });

  it('should refuse a near-miss field and suggest it', () => {
    const sut = only(analyze(definition({ llm: 'x {{t_add.stauts}} y' })).problems);
    expect(sut).toMatchObject({
      pointer: '/nodes/2/data/prompt',
      message: expect.stringMatching(
        /^\{\{t_add\.stauts\}\}: tool node "t_add" has no field "stauts"; it has output, data, status, error; did you mean \{\{t_add\.status\}\}\?$/,
      ),
      suggestion: '{{t_add.status}}',
    });
  });

  it('should refuse a field of an array and a field under a number', () => {
    const { problems } = analyze(
      definition({ end: { a: '{{llm-1.tool_calls.name}}', b: '{{llm-1.usage.total_tokens.x}}' } }),
    );
    expect(problems.map((problem) => problem.message)).toEqual([
      '{{llm-1.tool_calls.name}}: llm-1.tool_calls is an array: read an item with [n], not "name"',
      '{{llm-1.usage.total_tokens.x}}: llm-1.usage.total_tokens is a number and has no field "x"',
    ]);
  });

  it('should check the definition outputs against every node', () => {
    const input = { ...definition(), outputs: { answer: '{{llm-1.txet}}' } };
    expect(only(analyze(input).problems)).toMatchObject({
      field: 'outputs.answer',
      pointer: '/outputs/answer',
      suggestion: '{{llm-1.text}}',
    });
  });

  it('should accept the deprecated output of an LLM node with a warning naming its replacement', () => {
    const sut = analyze(definition({ end: { answer: '{{llm-1.output}}' } }));
    expect(sut.problems).toEqual([]);
    expect(only(sut.warnings)).toMatchObject({
      pointer: '/nodes/4/data/outputs/answer',
      message: '{{llm-1.output}}: "output" of a llm node is deprecated; did you mean {{llm-1.text}}?',
      suggestion: '{{llm-1.text}}',
    });
  });

  it('should warn about an input the inputs schema does not declare, and keep it', () => {
    const sut = analyze(definition({ tool: { a: '{{inputs.bb ?? 1}}' } }));
    expect(sut.problems).toEqual([]);
    expect(only(sut.warnings)).toMatchObject({
      message: '{{inputs.bb ?? 1}}: inputs declares no "bb"; did you mean {{inputs.b ?? 1}}?',
    });
  });
});
