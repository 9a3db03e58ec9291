import { nodeCheckContext } from '../../test/factories/node-check-context.factory';
import { analyzeDefinition } from './validate-definition';

const definition = (changes: Record<string, unknown> = {}) => ({
  name: 'demo',
  nodes: <Array<{ id: string; type: string; data: Record<string, unknown> }>>[
    { id: 'start', type: 'start', data: {} },
    { id: 'llm-1', type: 'llm', data: { prompt: '{{inputs.question}}', tools: ['search'] } },
    { id: 'end', type: 'end', data: { outputs: { answer: '{{llm-1.output}}' } } },
  ],
  edges: [
    { source: 'start', target: 'llm-1' },
    { source: 'llm-1', target: 'end' },
  ],
  ...changes,
});

const messages = (input: unknown) =>
  analyzeDefinition(input, nodeCheckContext()).problems.map((problem) => `${problem.field}: ${problem.message}`);

describe(analyzeDefinition.name, () => {
  it('should accept a valid definition and list its order and tools', () => {
    const sut = analyzeDefinition(definition(), nodeCheckContext());
    expect(sut.problems).toEqual([]);
    expect(sut.order).toEqual(['start', 'llm-1', 'end']);
    expect(sut.toolsByNode).toEqual(new Map([['llm-1', { field: 'tools', names: ['search'], selectors: [] }]]));
  });

  it('should name the node whose type is unknown', () => {
    const input = definition();
    input.nodes[1].type = 'repeat';
    expect(messages(input)).toEqual([expect.stringMatching(/^definition\.nodes\[1\]\(llm-1\)\.type: .*"llm"/)]);
  });

  it('should name the node of a misspelled LLM field', () => {
    const input = definition();
    input.nodes[1].data.max_iteration = 3;
    expect(messages(input)).toEqual([
      'definition.nodes[1](llm-1).data: must NOT have additional properties "max_iteration"; did you mean "max_iterations"?',
    ]);
  });

  it.each([
    ['start', { lable: 'x' }, 'label'],
    ['template', { template: 'x', templat: 'y' }, 'template'],
    ['condition', { conditions: [{ left: 1, op: 'equals', right: 1 }], logc: 'or' }, 'logic'],
    ['tool', { tool: 'search', argument: {} }, 'arguments'],
    ['end', { output: {} }, 'outputs'],
  ])('should refuse an unknown field of a %s node and suggest the near miss', (type, data, suggestion) => {
    const input = definition();
    const node = { id: 'n', type, data };
    if (type === 'start') input.nodes[0] = { ...node, id: 'start' };
    else if (type === 'end') input.nodes[2] = { ...node, id: 'end' };
    else input.nodes.splice(2, 0, node);
    if (type !== 'start' && type !== 'end') input.edges = [...input.edges, { source: 'llm-1', target: 'n' }];
    const { problems } = analyzeDefinition(input, nodeCheckContext());
    expect(problems).toContainEqual(
      expect.objectContaining({
        message: expect.stringContaining(`did you mean "${suggestion}"?`) as string,
        suggestion,
      }),
    );
  });

  it('should refuse an unknown field of a node itself', () => {
    const input = definition();
    (input.nodes[1] as Record<string, unknown>).dta = {};
    expect(messages(input)).toEqual([
      'definition.nodes[1](llm-1): must NOT have additional properties "dta"; did you mean "data"?',
    ]);
  });

  it('should accept a $schema naming the published schema', () => {
    expect(messages(definition({ $schema: '../schemas/workflow.schema.json' }))).toEqual([]);
  });

  it('should refuse a reference to a node that runs later', () => {
    const input = definition();
    input.nodes[1].data = { prompt: '{{end.outputs}}' };
    expect(messages(input)).toEqual([
      'nodes[1](llm-1).data.prompt: {{end.outputs}}: node "end" does not run before this node',
    ]);
  });

  it('should refuse a field an LLM node does not produce', () => {
    const input = definition();
    input.nodes[2].data = { outputs: { thoughts: '{{llm-1.thoughts}}' } };
    expect(messages(input)).toEqual([
      expect.stringMatching(/^nodes\[2\]\(end\)\.data\.outputs\.thoughts: .*llm node "llm-1" has no field "thoughts"/),
    ]);
  });

  it('should refuse an LLM node without data instead of failing when it runs', () => {
    const input = definition();
    delete (input.nodes[1] as { data?: unknown }).data;
    expect(messages(input)).toEqual(["definition.nodes[1](llm-1): must have required property 'data'"]);
  });

  it('should accept a reference to the results of a condition node', () => {
    const input = definition();
    input.nodes.splice(2, 0, {
      id: 'check',
      type: 'condition',
      data: { conditions: [{ left: '{{llm-1.output}}', op: 'is_not_empty' }] },
    });
    input.edges = [
      { source: 'start', target: 'llm-1' },
      { source: 'llm-1', target: 'check' },
      { source: 'check', target: 'end', condition: true },
    ] as typeof input.edges;
    input.nodes[3].data = { outputs: { answer: '{{llm-1.output}}', checks: '{{check.results}}' } };
    expect(messages(input)).toEqual([]);
  });

  it('should name the LLM node whose provider is not configured, apart from the problems of the definition', () => {
    const input = definition();
    input.nodes[1].data.provider = 'nowhere';
    const sut = analyzeDefinition(input, nodeCheckContext());
    expect(sut.problems).toEqual([]);
    expect(sut.unconfigured).toEqual([
      { field: 'nodes[1](llm-1).data.provider', message: 'unknown provider "nowhere"; configured: local' },
    ]);
  });
});
