import { affixEnglish, type AffixWeights } from './chinese-affixes';
import { chineseWords } from './chinese-words';
import { lexicon } from './lexicon';

const WEIGHTS: AffixWeights = { meaning: 0.5, joined: 1, initials: 0.5 };

describe(affixEnglish.name, () => {
  const dictionary = () => {
    const loaded = lexicon();
    if (loaded === undefined) throw new Error('the lexicon did not load');
    return loaded.chinese;
  };
  const sut = (run: string, character: string, weights = WEIGHTS) => {
    const words = chineseWords(run, dictionary());
    return new Map(affixEnglish(dictionary(), words, words.indexOf(character), weights));
  };

  it('should join a suffix meaning with the English of the word before it', () => {
    const added = sut('变更集', '集');

    expect(added.get('set')).toBe(WEIGHTS.meaning);
    expect(added.get('changeset')).toBe(WEIGHTS.joined);
    expect(added.get('cs')).toBe(WEIGHTS.initials);
  });

  it('should attach the English affix among the senses of a character to the word beside it', () => {
    // 可 "can; may; able to; -able", before 预订 (reserve); a function word: its affix meanings do not count.
    const added = sut('可预订', '可', { ...WEIGHTS, meaning: 0 });

    expect(added.get('reservable')).toBe(WEIGHTS.joined);
    expect([...added.values()].every((weight) => weight === WEIGHTS.joined)).toBe(true);
  });

  it('should add nothing for a character beside no word, or beside function words only', () => {
    expect(sut('集', '集').size).toBe(0);
    expect(sut('的集', '集').size).toBe(0);
  });
});
