import { nodeCheckContext } from '../../test/factories/node-check-context.factory';
import { analyzeDefinition } from './validate-definition';

type Node = { id: string; type: string; data?: Record<string, unknown> };

/** start → llm-1 → each (a map over the LLM node's tool calls, its nested graph as given) → end. */
const withMap = (inner: Node[], mapData: Record<string, unknown> = {}) => ({
  name: 'demo',
  nodes: [
    { id: 'start', type: 'start', data: {} },
    { id: 'llm-1', type: 'llm', data: { prompt: '{{inputs.question}}' } },
    {
      id: 'each',
      type: 'map',
      data: {
        items: '{{llm-1.tool_calls}}',
        nodes: inner,
        edges: inner.slice(1).map((node, index) => ({ source: inner[index].id, target: node.id })),
        ...mapData,
      },
    },
    { id: 'end', type: 'end', data: { outputs: { all: '{{each.output}}' } } },
  ],
  edges: [
    { source: 'start', target: 'llm-1' },
    { source: 'llm-1', target: 'each' },
    { source: 'each', target: 'end' },
  ],
});

const inner = (middle: Node): Node[] => [
  { id: 'item-start', type: 'start' },
  middle,
  { id: 'item-end', type: 'end', data: { outputs: { answer: `{{${middle.id}.output}}` } } },
];

const messages = (input: unknown) =>
  analyzeDefinition(input, nodeCheckContext()).problems.map((problem) => `${problem.field}: ${problem.message}`);

describe('analyzeDefinition of nested graphs', () => {
  it('should accept references to the item, to the nodes before the map node, and list the nested tools', () => {
    const input = withMap(
      inner({
        id: 'ask',
        type: 'llm',
        data: { prompt: 'Item {{item_index}}: {{item.name}} after {{llm-1.output}}', tools: ['search', 'fetch'] },
      }),
    );
    const sut = analyzeDefinition(input, nodeCheckContext());
    expect(sut.problems).toEqual([]);
    expect(sut.toolsByNode.get('each')).toEqual({ field: 'nodes', names: ['search', 'fetch'], selectors: [] });
  });

  it('should name the nested node of a broken reference and of an invalid field', () => {
    const input = withMap(
      inner({ id: 'ask', type: 'llm', data: { prompt: '{{end.outputs}} and {{nowhere.output}}', temprature: 1 } }),
    );
    expect(messages(input)).toEqual([
      'nodes[2](each).data.nodes[1](ask).data: must NOT have additional properties "temprature"; did you mean "temperature"?',
    ]);
    delete ((input.nodes[2].data as { nodes: Node[] }).nodes[1].data as Record<string, unknown>).temprature;
    expect(messages(input)).toEqual([
      'nodes[2](each).data.nodes[1](ask).data.prompt: {{end.outputs}}: there is no node "end"',
      'nodes[2](each).data.nodes[1](ask).data.prompt: {{nowhere.output}}: there is no node "nowhere"',
    ]);
  });

  it('should point at the nested string, and check paths into the map output and the item index', () => {
    const input = withMap(inner({ id: 'say', type: 'template', data: { template: '{{item_index.name}}' } }));
    (input.nodes[3].data as Record<string, unknown>).outputs = {
      first: '{{each.output[0].answer}}',
      wrong: '{{each.outputs}}',
    };
    const sut = analyzeDefinition(input, nodeCheckContext()).problems;
    expect(sut.map((problem) => [problem.pointer, problem.message])).toEqual([
      [
        '/nodes/3/data/outputs/wrong',
        expect.stringMatching(/^\{\{each.outputs\}\}: .*did you mean \{\{each.output\}\}\?$/),
      ],
      ['/nodes/2/data/nodes/1/data/template', expect.stringContaining('is a number and has no field "name"')],
    ]);
  });

  it('should refuse a nested graph without an end node, and nested ids taken around it', () => {
    expect(
      messages(
        withMap([
          { id: 'item-start', type: 'start' },
          { id: 'llm-1', type: 'template', data: { template: 'x' } },
        ]),
      ),
    ).toEqual([
      'nodes[2](each).data.nodes[1](llm-1).id: node id "llm-1" is taken around this nested graph: give the nested node another id',
      'nodes[2](each).data.nodes: needs at least one end node',
    ]);
  });

  it('should refuse a map node with both nodes and tool, and one with neither', () => {
    const both = withMap(inner({ id: 'say', type: 'template', data: { template: '{{item}}' } }), { tool: 'search' });
    expect(messages(both)).toEqual([
      'nodes[2](each).data.nodes: a map node needs either nodes (and edges) or tool, not both',
    ]);
    const tool = { id: 'each', type: 'map', data: { items: [1, 2], tool: 'search', arguments: { q: '{{item}}' } } };
    const input = withMap([]);
    input.nodes[2] = tool as (typeof input.nodes)[2];
    expect(messages(input)).toEqual([]);
    expect(analyzeDefinition(input, nodeCheckContext()).toolsByNode.get('each')).toEqual({
      field: 'tool',
      names: ['search'],
    });
  });

  it('should let a loop node read {{last}} in its conditions and nested nodes', () => {
    const input = withMap([]);
    input.nodes[2] = {
      id: 'each',
      type: 'loop',
      data: {
        nodes: inner({ id: 'say', type: 'template', data: { template: '{{iteration}}: {{last.answer}}' } }),
        edges: [
          { source: 'item-start', target: 'say' },
          { source: 'say', target: 'item-end' },
        ],
        max_iterations: 3,
        conditions: [{ left: '{{last.answer}}', op: 'not_equals', right: 'done' }],
      },
    } as (typeof input.nodes)[2];
    expect(messages(input)).toEqual([]);
    delete (input.nodes[2].data as Record<string, unknown>).max_iterations;
    expect(messages(input)).toEqual(["definition.nodes[2](each).data: must have required property 'max_iterations'"]);
  });
});
