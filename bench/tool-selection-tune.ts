import { writeFileSync } from 'node:fs';
import type { FunctionTool } from '../src/shared/tool-types';
import { ToolIndex, toolDocument, type ToolIndexOptions } from '../src/agent/selection/tool-index';
import { apiZooPool, chineseQuestions, KS, recall, type Question } from './tool-selection.bench';

/** How far down a question's tool is looked for in the rank file (0 there: not among them). */
const RANKED = 50;

/**
 * Half A only, the half a ranking change is tuned on: recall@5/10/20 of English, both Chinese translations,
 * the mixed set, and English over the 1000-tool pool, in a few seconds and without printing half B (whose
 * figures `tool-selection.bench.ts` prints with every run). `--ranks FILE` writes each question's rank of its
 * tool and the question, one a line, to compare two settings question by question (`diff` or `paste`).
 */
function tuneHalfA(ranksFile?: string): Record<string, Record<string, number>> {
  const { tools, small, half } = apiZooPool();
  const { chinese, mixed, tuning } = chineseQuestions();
  const lines: string[] = [];
  const measure = (pool: readonly FunctionTool[], questions: readonly Question[], options: ToolIndexOptions = {}) => {
    const index = new ToolIndex(
      pool.map((tool) => toolDocument(tool, options.tokenize)),
      options,
    );
    const rankings = questions.map(({ question, tool }) => {
      const ranked = index.rank(question, Math.max(RANKED, ...KS)).map((entry) => entry.name);
      lines.push(`${ranked.indexOf(tool) + 1}\t${question}`);
      return { tool, ranked };
    });
    return recall(rankings);
  };
  const rows = {
    [`English (${half('A').length})`]: measure(small, half('A')),
    [`Chinese (${half('A', chinese).length})`]: measure(small, half('A', chinese)),
    [`Chinese, tuning translation (${half('A', tuning).length})`]: measure(small, half('A', tuning)),
    [`Chinese with an English term (${half('A', mixed).length})`]: measure(small, half('A', mixed)),
    [`English, ${tools.length} tools`]: measure(tools, half('A')),
    ['English, sibling families on']: measure(small, half('A'), { siblings: true }),
  };
  if (ranksFile !== undefined) writeFileSync(ranksFile, `${lines.join('\n')}\n`);
  return rows;
}

if (require.main === module) {
  const flag = process.argv.indexOf('--ranks');
  console.table(tuneHalfA(flag >= 0 ? process.argv[flag + 1] : undefined));
}
