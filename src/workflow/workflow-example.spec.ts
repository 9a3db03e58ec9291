import { analyzeDefinition } from './validate-definition';
import { WEATHER_EXAMPLE } from './workflow-example';

describe('WEATHER_EXAMPLE', () => {
  it('should be a valid definition', () => {
    expect(analyzeDefinition(WEATHER_EXAMPLE).problems).toEqual([]);
  });
});
