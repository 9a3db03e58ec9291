import type { WorkflowDefinition } from './definition.schema';
import { renameToolsIn } from './rename-tools';

describe(renameToolsIn.name, () => {
  it('should rename every tool name the nodes hold and leave selectors and other nodes alone', () => {
    const definition = {
      name: 'flow',
      nodes: [
        { id: 'start', type: 'start', data: {} },
        {
          id: 'llm-1',
          type: 'llm',
          data: {
            prompt: 'Hi',
            tools: ['old', '*', { category: 'old' }, 'kept'],
            tool_selection: { max_tools: 2, always: ['old'] },
            tool_choice: { name: 'old' },
          },
        },
        { id: 'call', type: 'tool', data: { tool: 'old' } },
        { id: 'end', type: 'end', data: { outputs: {} } },
      ],
      edges: [],
    } as unknown as WorkflowDefinition;

    const sut = renameToolsIn(definition, (name) => (name === 'old' ? 'new' : name));

    expect(sut.nodes.map((node) => node.data)).toEqual([
      {},
      {
        prompt: 'Hi',
        tools: ['new', '*', { category: 'old' }, 'kept'],
        tool_selection: { max_tools: 2, always: ['new'] },
        tool_choice: { name: 'new' },
      },
      { tool: 'new' },
      { outputs: {} },
    ]);
  });
});
