import { graphOrder } from './graph-order';

const edge = (source: string, target: string) => ({ source, target });

describe(graphOrder.name, () => {
  it('should put every node after its sources', () => {
    const sut = graphOrder(['end', 'b', 'start', 'a'], [edge('start', 'a'), edge('a', 'b'), edge('b', 'end')]);
    expect(sut).toEqual({ order: ['start', 'a', 'b', 'end'], cyclic: [] });
  });

  it('should name only the nodes on a cycle, not those downstream of it', () => {
    const sut = graphOrder(
      ['start', 'llm', 'again', 'end'],
      [edge('start', 'llm'), edge('llm', 'again'), edge('again', 'llm'), edge('llm', 'end')],
    );
    expect(sut.cyclic).toEqual(['llm', 'again']);
    expect(sut.order).toEqual(['start']);
  });

  it('should keep the nodes between two cycles', () => {
    const sut = graphOrder(
      ['a', 'b', 'c', 'd', 'e'],
      [edge('a', 'b'), edge('b', 'a'), edge('b', 'c'), edge('c', 'd'), edge('d', 'e'), edge('e', 'd')],
    );
    expect(sut.cyclic).toEqual(['a', 'b', 'c', 'd', 'e']);
  });
});
