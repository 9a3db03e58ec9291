import { chineseTerms, chineseWords } from './chinese-words';
import { lexicon } from './lexicon';

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

describe('chineseWords', () => {
  const dictionary = (words: string) => ({ has: (word: string) => words.split(' ').includes(word), longest: 3 });

  it('should cut a run into the fewest words, not the longest first word', () => {
    expect(chineseWords('用作用域', dictionary('用作 用 域'))).toEqual(['用', '作用域']);
  });

  it('should prefer, of cuts with as many words, the one that holds glossary and function words', () => {
    expect(chineseWords('再发布', dictionary('再发 布 再'))).toEqual(['再', '发布']);
    expect(chineseWords('表单体', dictionary('表 单体 体'))).toEqual(['表单', '体']);
  });

  it('should prefer, of otherwise equal cuts, longer words later', () => {
    expect(chineseWords('研究生命', dictionary('研究生 研究 生命 命'))).toEqual(['研究', '生命']);
  });

  it('should keep a proper name whole', () => {
    const loaded = lexicon();

    expect(loaded && chineseWords('意大利餐厅', loaded.chinese)).toEqual(['意大利', '餐厅']);
  });

  it('should not read a proper name where ordinary and function words cut as well', () => {
    const loaded = lexicon();

    // 里加 is Riga, and 论文里加一段 is "add a paragraph in the paper": 里 (in) + 加 (add).
    expect(loaded && chineseWords('论文里加一段', loaded.chinese)).toEqual(['论文', '里', '加', '一', '段']);
  });

  it('should leave out characters no dictionary holds', () => {
    expect(chineseWords('ファイル削除', dictionary('削除'))).toEqual(['削除']);
  });
});
