import { nodeCheckContext } from '../../test/factories/node-check-context.factory';
import { analyzeDefinition } from './validate-definition';
import { WEATHER_EXAMPLE } from './workflow-example';

describe('WEATHER_EXAMPLE', () => {
  it('should be a valid definition', () => {
    expect(analyzeDefinition(WEATHER_EXAMPLE, nodeCheckContext()).problems).toEqual([]);
  });
});
