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
  for (let start = 0; start < run.length;) {
    let length = Math.min(LONGEST, run.length - start);
    while (length > 0 && !GLOSSARY.has(run.slice(start, start + length))) length--;
    if (length === 0) {
      start++;
      continue;
    }
    terms.push(...(GLOSSARY.get(run.slice(start, start + length)) ?? []));
    start += length;
  }
  if (run.length === 1) terms.push(run);
  for (let index = 0; index + 1 < run.length; index++) terms.push(run.slice(index, index + 2));
  return terms;
}
