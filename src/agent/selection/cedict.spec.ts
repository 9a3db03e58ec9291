import { lexicon } from './lexicon';

describe('ChineseDictionary', () => {
  const sut = () => {
    const loaded = lexicon();
    if (loaded === undefined) throw new Error('the lexicon did not load');
    return loaded.chinese;
  };

  it('should take the first sense of each reading before the second of any', () => {
    // 后 is "empress" (后) and "back; behind; after" (後): both readings come first.
    expect(sut().senses('后').slice(0, 2)).toEqual(['empress', 'back']);
  });

  it('should keep up to six senses, as the sense a request means may come late', () => {
    expect(sut().senses('更新')).toContain('to update');
  });

  it('should leave out senses that are cross-references, classifiers or pronunciations', () => {
    expect(sut().senses('个')).toEqual(['individual']);
    expect(sut().senses('部分').join(' ')).not.toMatch(/Taiwan|pr\./);
    expect(sut().senses('条').join(' ')).not.toMatch(/classifier/);
  });

  it('should know a proper name by its name alone, and only where no other entry holds the word', () => {
    expect(sut().senses('谷歌')).toEqual(['Google']);
    expect(sut().senses('旧金山')).toEqual(['San Francisco']);
    expect(sut().senses('后')).not.toContain('Hou');
  });

  it('should write traditional characters in their one simplified form', () => {
    expect(sut().simplified('獲取郵件 and 會議室預訂')).toBe('获取邮件 and 会议室预订');
    expect(sut().simplified('乾')).toBe('乾');
  });

  it('should read what a character means at the end of compounds from the compounds that show it', () => {
    expect(sut().affixMeanings('集', 'suffix')).toEqual(['set']);
    expect(sut().affixMeanings('多', 'prefix')).toEqual(['multi']);
    expect(sut().affixMeanings('改', 'suffix')).toEqual([]);
  });
});
