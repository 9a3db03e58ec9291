import { CHINESE_GLOSSARY } from './chinese-glossary';

const GLOSSARY: ReadonlyMap<string, readonly string[]> = new Map(
  Object.entries(CHINESE_GLOSSARY).map(([word, english]) => [word, english === '' ? [] : english.split(' ')]),
);
const LONGEST = Math.max(...[...GLOSSARY.keys()].map((word) => word.length));

/**
 * Ranking terms of a run of CJK text: the English words of the glossary words in it, the run cut into words by
 * longest match from the left (获取账号 is 获取 + 账号; 取消发布 is one word, unpublish, not cancel + publish), and
 * the run's overlapping bigrams (or the lone character), which meet tools described in Chinese.
 *
 * Longest match over the glossary rather than `Intl.Segmenter('zh')`: ICU's dictionary cuts words the glossary
 * holds (账号 into 账 + 号), and on the bench it found the right tool less often (recall@10 0.735 against 0.829).
 */
export function chineseTerms(run: string): string[] {
  const terms: string[] = [];
  for (const word of chineseWords(run)) terms.push(...(GLOSSARY.get(word) ?? []));
  if (run.length === 1) terms.push(run);
  for (let index = 0; index + 1 < run.length; index++) terms.push(run.slice(index, index + 2));
  return terms;
}

/**
 * Chinese function words and question phrases: their dictionary senses are grammar (的 "of; 's", 是 "to be",
 * 什么 "something; anything"), so they are not bridged to English. Generic, as in any Chinese stop-word list.
 */
export const CHINESE_FUNCTION_WORDS: ReadonlySet<string> = new Set(
  (
    '的 地 得 了 着 过 是 在 有 和 与 或 及 把 被 让 给 对 从 到 为 为了 以 于 也 都 就 还 又 再 很 更 最 这 那 这个 那个 ' +
    '这些 那些 这样 那样 哪 哪些 哪个 哪里 什么 什么样 怎么 怎样 怎么样 怎么办 如何 为什么 吗 呢 吧 啊 一 一个 一下 一些 ' +
    '一种 某 某个 某些 每 每个 我 我的 我们 你 你的 您 他 她 它 他们 要 想 能 能够 可 会 应该 得到 里 上 中 内 时 时候 ' +
    '后 前 之 其 该 此 并 而 但 如果 有没有 没有 办法 最好 情况 做 用 请 帮 帮我 干 多少 几 方式 过程 所 它们 是不是 ' +
    '以及 还是 需要 可能 已经 正在 现在 然后 之后 之前 时间 东西 事 事情 问题 ' +
    // Measure words, directional complements, conjunctions and pronouns of the same kind as those above.
    '个 条 张 份 件 位 只 次 些 种 批 来 去 出来 起来 下来 进来 上来 过来 回来 出去 下去 或 或者 比如 例如 ' +
    '可以 不能 能不能 可不可以 之间 那里 这里 哪儿 已 另 另一 另外 其他 其它 别的 以后 以前 还有 而 但是 ' +
    '因为 所以 这种 那种 各 ' +
    // What the English stop words say (via, use, about, when, can): 通过 is "to pass through" first.
    '通过 经由 使用 关于 什么时候 何时 能否 可否'
  ).split(' '),
);

/** The English words of a glossary word, or undefined when the glossary does not hold it. */
export const glossaryEnglish = (word: string): readonly string[] | undefined => GLOSSARY.get(word);

/**
 * What a word the dictionary holds only as a proper name counts for in a cut: as much as two characters, so
 * that it loses a tie with a cut of ordinary and function words (论文里加一段: 里 in + 加 add, not 里加 Riga) and
 * still wins where its characters mean nothing together (意大利 Italy, 旧金山 San Francisco).
 */
const NAME_PIECES = 2;

/**
 * A run of CJK text cut into dictionary words over the glossary and, when given, another dictionary: the cut
 * with the fewest pieces (a character no dictionary holds is a piece of its own, and is left out; a proper
 * name counts as two), of equal cuts the one whose later words are longer. Longest match from the left alone
 * cuts 用作用域 as 用作 + 用 + 域 where 用 + 作用域 (use + scope) reads it whole.
 */
export function chineseWords(
  run: string,
  dictionary?: { has(word: string): boolean; isName?(word: string): boolean; longest: number },
): string[] {
  const longest = Math.max(LONGEST, dictionary?.longest ?? 0);
  const known = (word: string): boolean => GLOSSARY.has(word) || dictionary?.has(word) === true;
  const cost = (word: string): number => (!GLOSSARY.has(word) && dictionary?.isName?.(word) === true ? NAME_PIECES : 1);
  // Up to each position: the fewest pieces, of those the most characters in glossary and function words (the
  // common words of requests), and the length of the last word (0: an unknown character).
  const pieces: number[] = new Array<number>(run.length + 1).fill(0);
  const glossed: number[] = new Array<number>(run.length + 1).fill(0);
  const last: number[] = new Array<number>(run.length + 1).fill(0);
  for (let end = 1; end <= run.length; end++) {
    pieces[end] = pieces[end - 1] + 1;
    glossed[end] = glossed[end - 1];
    for (let length = Math.min(longest, end); length > 0; length--) {
      const word = run.slice(end - length, end);
      if (!known(word)) continue;
      const count = pieces[end - length] + cost(word);
      const covered = glossed[end - length] + (GLOSSARY.has(word) || CHINESE_FUNCTION_WORDS.has(word) ? length : 0);
      if (last[end] === 0 || count < pieces[end] || (count === pieces[end] && covered > glossed[end])) {
        pieces[end] = count;
        glossed[end] = covered;
        last[end] = length;
      }
    }
  }
  const words: string[] = [];
  for (let end = run.length; end > 0; end -= Math.max(last[end], 1))
    if (last[end] > 0) words.unshift(run.slice(end - last[end], end));
  return words;
}
