import { chineseTerms } from './chinese-words';
import { SYNONYM_GROUPS } from './vocabulary';

export interface TokenizeOptions {
  /** Split `getWeather`, `get_weather`, `HTTPRequest` into words. Default true. */
  splitIdentifiers?: boolean;
  /** Light suffix stripping (plurals, -ed, -ing, -ion, final e). Default true. */
  stem?: boolean;
}

const STOPWORDS = new Set(
  (
    'a an the and or of to in on for by with from at as is are was were be been it its this that these those i me my ' +
    'we our you your he she they them their can could would should will shall do does did how what which who whom ' +
    'when where why please want need like some any all into about up out if then there here just also so than too ' +
    'very via using use used'
  ).split(' '),
);

// Han, Hiragana, Katakana, Hangul: scripts written without spaces between words.
const CJK = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]/u;
const CJK_RUN = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]+/gu;

/** Light English stemming: enough to meet `forecasts`/`forecast`, `created`/`create`/`creation`. */
export function stem(word: string): string {
  let w = word;
  if (w.length <= 3 || /\d/.test(w)) return w;
  if (w.endsWith('ies') && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (/(?:ch|sh|x|z)es$/.test(w)) w = w.slice(0, -2);
  else if (w.endsWith('s') && !/(?:ss|us|is)$/.test(w)) w = w.slice(0, -1);
  if (w.endsWith('ing') && w.length > 5) w = w.slice(0, -3);
  else if (w.endsWith('ed') && w.length > 4) w = w.slice(0, -2);
  else if (w.endsWith('ions') && w.length > 6) w = w.slice(0, -4);
  else if (w.endsWith('ion') && w.length > 6) w = w.slice(0, -3);
  if (w.length >= 4 && /([b-df-hj-np-tv-z])\1$/.test(w) && !/(?:ll|ss|zz)$/.test(w)) w = w.slice(0, -1);
  if (w.endsWith('e') && w.length > 4) w = w.slice(0, -1);
  return w;
}

/**
 * Words of a text for lexical ranking: identifiers split, lower case, stop words out, stemmed. Runs of
 * CJK characters become the English words of the glossary words in them (so a Chinese question can meet
 * English descriptions) and overlapping bigrams; see `chineseTerms`.
 */
export function tokenize(text: string, options: TokenizeOptions = {}): string[] {
  const { splitIdentifiers = true, stem: stemming = true } = options;
  const tokens: string[] = [];
  let rest = text;
  if (CJK.test(text)) {
    rest = text.replace(CJK_RUN, (run) => {
      tokens.push(...chineseTerms(run));
      return ' ';
    });
    if (stemming) for (let index = 0; index < tokens.length; index++) tokens[index] = stem(tokens[index]);
  }
  for (const word of plainWords(rest, splitIdentifiers)) tokens.push(stemming ? stem(word) : word);
  return tokens;
}

/** The runs of CJK characters in a text. */
export const cjkRuns = (text: string): string[] => text.match(CJK_RUN) ?? [];

/** The words of a text outside its CJK runs, as written but in lower case, identifiers split, stop words out. */
export function plainWords(text: string, splitIdentifiers = true): string[] {
  const rest = text.replace(CJK_RUN, ' ');
  const spaced = splitIdentifiers
    ? rest.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    : rest;
  return spaced
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== '' && !STOPWORDS.has(word));
}

const SYNONYMS: ReadonlyMap<string, readonly string[]> = (() => {
  const map = new Map<string, string[]>();
  for (const group of SYNONYM_GROUPS) {
    const stems = [...new Set(group.map(stem))];
    for (const word of stems) map.set(word, [...(map.get(word) ?? []), ...stems.filter((other) => other !== word)]);
  }
  return map;
})();

/** Other stems that mean about the same in tool descriptions (`fetch` → `get`, `retriev` …). */
export const synonymsOf = (token: string): readonly string[] => SYNONYMS.get(token) ?? [];
