import { allNodeIds, freeId, insertNestedNode, insertNode, nodeTypeText } from '../../console/src/lib/graph-edit';

const chain = {
  name: 'w',
  nodes: [
    { id: 'start', type: 'start', data: {} },
    { id: 'end', type: 'end', data: {} },
  ],
  edges: [{ source: 'start', target: 'end' }],
};

describe('insertNode', () => {
  it('should put a new map node between the selected node and what followed it, with a runnable nested graph', () => {
    const next = insertNode(chain, 'start', 'map', 'map-1');

    expect(next.nodes.map((node) => node.id)).toEqual(['start', 'map-1', 'end']);
    expect(next.edges).toEqual([
      { source: 'map-1', target: 'end' },
      { source: 'start', target: 'map-1' },
    ]);
    expect(next.nodes[1].data).toMatchObject({
      items: '',
      concurrency: 4,
      on_item_error: 'fail',
      nodes: [
        { id: 'map-1-start', type: 'start' },
        { id: 'map-1-end', type: 'end', data: { outputs: { result: '{{item}}' } } },
      ],
      edges: [{ source: 'map-1-start', target: 'map-1-end' }],
    });
    expect(next.name).toBe('w');
  });

  it('should keep a condition on the edges it moves', () => {
    const branching = { nodes: chain.nodes, edges: [{ source: 'start', target: 'end', condition: true }] };

    expect(insertNode(branching, 'start', 'template', 'template-1').edges).toEqual([
      { source: 'template-1', target: 'end', condition: true },
      { source: 'start', target: 'template-1' },
    ]);
  });

  it('should add the node unconnected when no node is selected', () => {
    const next = insertNode(chain, null, 'loop', 'loop-1');

    expect(next.edges).toEqual(chain.edges);
    expect(next.nodes.at(-1)).toMatchObject({ id: 'loop-1', type: 'loop', data: { max_iterations: 3 } });
  });
});

describe('insertNestedNode', () => {
  it('should add the nested node after the nested start, with an id no node of the workflow has', () => {
    const map = insertNode(chain, 'start', 'map', 'map-1').nodes[1];
    const withTemplate = { ...chain, nodes: [...chain.nodes, { id: 'template-1', type: 'template' }] };

    const data = insertNestedNode(map, 'template', allNodeIds(withTemplate));

    expect(data.nodes).toEqual([
      { id: 'map-1-start', type: 'start', data: {} },
      { id: 'template-2', type: 'template', data: { template: '{{item}}' } },
      { id: 'map-1-end', type: 'end', data: { outputs: { result: '{{item}}' } } },
    ]);
    expect(nodeTypeText({ id: 'map-1', type: 'map', data })).toBe('map · 1 nested node');
  });
});

describe('nodeTypeText', () => {
  it('should label a map or loop node by type with its count of nested nodes, others by type', () => {
    const nested = (count: number) => [
      { id: 's', type: 'start' },
      ...Array.from({ length: count }, (_, index) => ({ id: `n${index}`, type: 'tool' })),
      { id: 'e', type: 'end' },
    ];

    expect(nodeTypeText({ id: 'l', type: 'loop', data: { nodes: nested(3) } })).toBe('loop · 3 nested nodes');
    expect(nodeTypeText({ id: 'm', type: 'map', data: { tool: 'geocode' } })).toBe('map · tool geocode');
    expect(nodeTypeText({ id: 't', type: 'template', data: {} })).toBe('template');
  });
});

describe('freeId and allNodeIds', () => {
  it('should count the ids nested in map and loop nodes as taken', () => {
    const next = insertNode(chain, 'start', 'map', 'map-1');

    const taken = allNodeIds(next);

    expect([...taken]).toEqual(['start', 'map-1', 'map-1-start', 'map-1-end', 'end']);
    expect(freeId(taken, 'map')).toBe('map-2');
  });
});
