import type { FunctionTool } from '../../shared/tool-types';
import { groupSiblings, siblingFamilies } from './sibling-families';
import { ToolIndex, toolDocument } from './tool-index';

const tool = (name: string, description: string): FunctionTool => ({
  type: 'function',
  function: { name, description, parameters: { type: 'object', properties: {} } },
});
const TOOLS = [
  tool('list_reservables', 'Returns the reservable workplace items of a building'),
  tool('get_weather', 'Current weather for a building site'),
  tool('get_reservable_details', 'Returns the details of the reservable workplace items of a building'),
  tool('send_email', 'Sends an email'),
];
const documents = TOOLS.map((entry) => toolDocument(entry));

describe(siblingFamilies.name, () => {
  it('should put tools that share most of their words in one family, and no others', () => {
    const { familyOf, shared } = siblingFamilies(documents);

    expect(familyOf[0]).toBe(familyOf[2]);
    expect(new Set(familyOf).size).toBe(3);
    expect(shared[0]).toEqual(new Set(['reservabl', 'return', 'workplac', 'item', 'build']));
    expect(shared[1].size).toBe(0);
  });
});

describe(groupSiblings.name, () => {
  it('should keep a family together, ordered by the words that tell its members apart', () => {
    const familyOf = Int32Array.from([0, 1, 0, 3]);
    const distinct = (tool: number) => (tool === 2 ? 5 : 0);

    expect(
      groupSiblings(
        [
          [0, 10],
          [1, 9.5],
          [2, 9.2],
          [3, 1],
        ],
        familyOf,
        distinct,
        3,
        0.9,
      ),
    ).toEqual([
      [2, 9.2],
      [0, 10],
      [1, 9.5],
    ]);
  });
});

describe('ToolIndex with siblings', () => {
  it('should rank the sibling whose own words the query uses first', () => {
    const query = 'reservable workplace items of a building, with their details';

    expect(new ToolIndex(documents, { siblings: true }).rank(query, 2).map(({ name }) => name)).toEqual([
      'get_reservable_details',
      'list_reservables',
    ]);
  });
});
