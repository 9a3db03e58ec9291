import { chineseTerms } from './chinese-words';

describe('chineseTerms', () => {
  it('should cut a run into glossary words, longest first, and give their English words', () => {
    expect(chineseTerms('获取账号')).toEqual(['get', 'retrieve', 'account', '获取', '取账', '账号']);
  });

  it('should take a longer word whole rather than the shorter words inside it', () => {
    const terms = chineseTerms('取消发布');

    expect(terms).toContain('unpublish');
    expect(terms).not.toContain('cancel');
    expect(terms).not.toContain('publish');
  });

  it('should not read a one-character entry inside a word that means something else', () => {
    expect(chineseTerms('包括')).toContain('include');
    expect(chineseTerms('包括')).not.toContain('package');
    expect(chineseTerms('进行')).not.toContain('row');
  });

  it('should keep characters the glossary does not hold as bigrams only', () => {
    expect(chineseTerms('北京')).toEqual(['北京']);
    expect(chineseTerms('京')).toEqual(['京']);
  });
});
