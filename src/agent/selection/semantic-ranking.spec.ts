import type { FunctionTool } from '../../shared/tool-types';
import { embeddingText, fuseRankings, similarities, unitVector } from './semantic-ranking';

const tool = (name: string, description?: string): FunctionTool => ({
  type: 'function',
  function: { name, ...(description === undefined ? {} : { description }), parameters: { type: 'object' } },
});

describe('semantic ranking', () => {
  it('should embed the name as words and the description, cut to 1000 characters', () => {
    expect(embeddingText(tool('getCurrentWeather', 'Weather now.'))).toBe('get Current Weather: Weather now.');
    expect(embeddingText(tool('places.search_nearby'))).toBe('places search nearby');
    expect(embeddingText(tool('long', 'x'.repeat(2000)))).toHaveLength(1000);
  });

  it('should scale vectors to length 1 and score tools of another length 0', () => {
    const query = unitVector([3, 4]);

    expect(Array.from(query)).toEqual([expect.closeTo(0.6), expect.closeTo(0.8)]);
    expect(Array.from(unitVector([0, 0]))).toEqual([0, 0]);
    expect(Array.from(similarities([unitVector([3, 4]), unitVector([1, 0]), unitVector([1, 0, 0])], query))).toEqual([
      expect.closeTo(1),
      expect.closeTo(0.6),
      0,
    ]);
  });

  const names = ['weather', 'places', 'stocks'];
  // "barber shops nearby": no word of `places`, but its meaning.
  const lexical = [{ name: 'weather', score: 2 }];
  const cosines = Float32Array.from([0.1, 0.9, 0.2]);

  it('should lift a tool the lexical ranking missed when its cosine is high (weighted sum)', () => {
    const ranked = fuseRankings(names, lexical, cosines, 3, { kind: 'weighted', lexicalWeight: 0.4 });

    expect(ranked.map((entry) => entry.name)).toEqual(['places', 'weather', 'stocks']);
    expect(ranked[0].score).toBeCloseTo(0.6);
    expect(ranked[1].score).toBeCloseTo(0.4);
  });

  it('should keep the lexical order when the lexical weight is 1 and rank by cosine when it is 0', () => {
    const order = (lexicalWeight: number) =>
      fuseRankings(names, lexical, cosines, 2, { kind: 'weighted', lexicalWeight }).map((entry) => entry.name);

    expect(order(1)).toEqual(['weather', 'places']);
    expect(order(0)).toEqual(['places', 'stocks']);
  });

  it('should add reciprocal ranks of both rankings (RRF)', () => {
    const ranked = fuseRankings(names, lexical, cosines, 3, { kind: 'rrf', k: 60 });

    // weather: lexical 1st + cosine 3rd; places: cosine 1st only; stocks: cosine 2nd only.
    expect(ranked.map((entry) => entry.name)).toEqual(['weather', 'places', 'stocks']);
    expect(ranked[0].score).toBeCloseTo(1 / 61 + 1 / 63);
  });
});
