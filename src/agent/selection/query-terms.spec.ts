import type { FunctionTool } from '../../shared/tool-types';
import { lexicon, lexiconLoad } from './lexicon';
import { queryTerms, type QueryOptions } from './query-terms';
import { DEFAULT_EXPANSION, ToolIndex, toolDocument } from './tool-index';

const tool = (name: string, description: string): FunctionTool => ({
  type: 'function',
  function: { name, description, parameters: { type: 'object', properties: {} } },
});
const TOOLS = [
  tool('places_search', 'Finds stores, restaurants and other businesses near a location'),
  tool('send_email', 'Sends an email'),
  tool('get_weather', 'Current weather for a city'),
];
const options = (): QueryOptions => ({ ...DEFAULT_EXPANSION, synonymWeight: 0.4, lexicon: lexicon() });
const groupTerms = (query: string) => queryTerms(query, options()).groups.flatMap((group) => [...group.keys()]);

describe(queryTerms.name, () => {
  it('should load the lexicon only when a query is first ranked', () => {
    expect(lexiconLoad()).toBeUndefined();

    new ToolIndex(TOOLS.map((entry) => toolDocument(entry))).rank('barber shops');

    expect(lexiconLoad()?.problem).toBeUndefined();
  });

  it('should widen an everyday word with WordNet, below the weight of the words as written', () => {
    const { terms, groups } = queryTerms('Where are the best barber shops nearby?', options());

    expect(terms.get('shop')).toBe(1);
    expect(groupTerms('barber shops')).toEqual(expect.arrayContaining(['barbershop', 'stor', 'establishment']));
    for (const group of groups) for (const weight of group.values()) expect(weight).toBeLessThanOrEqual(1);
  });

  it('should bridge a Chinese word the glossary lacks to its CC-CEDICT senses', () => {
    expect(groupTerms('附近的理发店')).toEqual(expect.arrayContaining(['barbershop', 'hairdresser']));
  });

  it('should weigh each CC-CEDICT sense of a word alike', () => {
    // 效果: "result", "effect", "efficacy".
    const [effect] = queryTerms('效果', options()).groups;

    expect(effect.get('result')).toBe(DEFAULT_EXPANSION.chineseWeight);
    expect(effect.get('effect')).toBe(DEFAULT_EXPANSION.chineseWeight);
  });

  it('should widen a word said twice once, as its own term counts once', () => {
    expect(queryTerms('update the instance in my instance', options()).groups).toEqual(
      queryTerms('update the instance', options()).groups,
    );
    expect(queryTerms('理发店和理发店', options()).groups).toEqual(queryTerms('理发店', options()).groups);
  });

  it('should not bridge Chinese function words', () => {
    expect(groupTerms('什么是')).toEqual([]);
    expect(groupTerms('通过')).toEqual([]);
  });

  it('should back a character no word holds off to its first sense, low and not widened', () => {
    const [lake] = queryTerms('湖', options()).groups;

    expect([...lake]).toEqual([['lake', DEFAULT_EXPANSION.singleCharacters]]);
  });

  it('should read full-width Latin letters and digits as ASCII', () => {
    expect(queryTerms('用ＡＰＩ获取ｓｙｓ＿ｉｄ１２', options())).toEqual(queryTerms('用API获取sys_id12', options()));
  });

  it('should read traditional characters as simplified', () => {
    expect(queryTerms('獲取理髮店', options())).toEqual(queryTerms('获取理发店', options()));
  });

  it('should join a word and the suffix after it into one English word', () => {
    // 变更集: 变更 (change) + 集, which CC-CEDICT knows as "to gather" and, at the end of 数据集, 字符集 …, as "set".
    const [changeSet] = queryTerms('变更集', options()).groups;
    const [resultSet] = queryTerms('结果集', options()).groups;

    expect(changeSet.get('changeset')).toBe(DEFAULT_EXPANSION.chineseWeight);
    expect(resultSet.get('set')).toBe(DEFAULT_EXPANSION.affixes);
  });

  it('should read a character before a word as its prefix', () => {
    // 多地点: 多 ("many") + 地点 (location); at the start of 多媒体, 多边 …, 多 is "multi".
    expect(groupTerms('多地点')).toEqual(expect.arrayContaining(['multi', 'multilocat']));
  });

  it('should read the first eight characters of a query as affixes, not all of a long text', () => {
    // 集, 项, 区, 名, 率, 码, 页, 栏 after 变更: eight characters, each read once however often it comes; 费 (fee,
    // stemmed changefe) is the ninth.
    const eight = ['集', '项', '项', '区', '名', '率', '码', '页', '栏']
      .map((character) => `变更${character}`)
      .join('，');

    expect(groupTerms(`${eight}，结果集`)).toContain('resultset');
    expect(groupTerms(`${eight}，变更费`)).not.toContain('changefe');
    expect(groupTerms('变更费')).toContain('changefe');
  });

  it('should add the initials of a word and its suffix, below the words', () => {
    // 配置项: configuration + 项 (item), which tools write CI.
    const [item] = queryTerms('配置项', options()).groups;

    expect(item.get('ci')).toBe(DEFAULT_EXPANSION.affixInitials);
    expect(item.get('item')).toBe(DEFAULT_EXPANSION.affixes);
  });

  it('should bridge kanji in Japanese text, and add nothing for kana', () => {
    expect(groupTerms('ファイルを削除する')).toEqual(expect.arrayContaining(['remov']));
    expect(groupTerms('ファイルをダウンロードする')).toEqual([]);
    expect(queryTerms('ファイル', options()).terms).toEqual(
      queryTerms('ファイル', { ...options(), lexicon: undefined }).terms,
    );
  });

  it('should add nothing for hangul but its bigrams', () => {
    const { terms, groups } = queryTerms('파일을 삭제', options());

    expect(groups).toEqual([]);
    expect([...terms.keys()]).toEqual(['파일', '일을', '삭제']);
  });

  it('should add nothing without the lexicon', () => {
    expect(queryTerms('barber shops', { ...options(), lexicon: undefined }).groups).toEqual([]);
  });
});

describe('ToolIndex with the lexicon', () => {
  it('should find a places tool for barber shops, which no tool text names', () => {
    const documents = TOOLS.map((entry) => toolDocument(entry));

    expect(new ToolIndex(documents, { expand: false }).rank('barber shops nearby')).toEqual([]);
    expect(new ToolIndex(documents).rank('barber shops nearby')[0]?.name).toBe('places_search');
    expect(new ToolIndex(documents).rank('附近的理发店')[0]?.name).toBe('places_search');
  });
});
