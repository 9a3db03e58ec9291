import type { ToolDefinition } from '../../shared/tool-definition';
import { toolIndexFor, toolSelectionFor } from './llm-node-tools';

const tool = (name: string, description: string, extra: Partial<ToolDefinition> = {}): ToolDefinition => ({
  schema: { type: 'function', function: { name, description, parameters: { type: 'object', properties: {} } } },
  effect: 'read_only',
  execute: () => Promise.resolve({ response: '' }),
  ...extra,
});

const pool = (): ToolDefinition[] => [
  tool('get_weather', 'Current weather for a city', { id: 'w', version: 1 }),
  tool('send_email', 'Sends an email message', { id: 'e', version: 3 }),
  tool('stock_quote', 'Latest price of a stock ticker'),
];

describe(toolIndexFor.name, () => {
  it('should build one index for the same tool versions, whichever definition objects hold them', () => {
    expect(toolIndexFor(pool())).toBe(toolIndexFor(pool()));
  });

  it('should build another index when a stored tool has a new version', () => {
    const changed = pool();
    changed[1] = { ...changed[1], version: 4 };

    expect(toolIndexFor(changed)).not.toBe(toolIndexFor(pool()));
  });

  it('should build another index when a tool without a version changes its description', () => {
    const changed = pool();
    changed[2] = tool('stock_quote', 'Latest price and volume of a stock ticker');

    const index = toolIndexFor(changed);

    expect(index).not.toBe(toolIndexFor(pool()));
    expect(index.rank('volume', 3)[0]?.name).toBe('stock_quote');
  });

  it('should rank with the shared index in every selection built over those tools', () => {
    const selection = { max_tools: 1 };

    const first = toolSelectionFor(selection, pool());
    const second = toolSelectionFor(selection, pool());

    expect(first?.rank('weather in Lisbon', 1)[0]?.name).toBe('get_weather');
    expect(second?.rank('email my team', 1)[0]?.name).toBe('send_email');
  });
});
