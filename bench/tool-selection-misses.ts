import type { FunctionTool } from '../src/shared/tool-types';
import { ToolIndex, toolDocument } from '../src/agent/selection/tool-index';
import { apiZooPool } from './tool-selection.bench';

const SHOWN = 10;
const DESCRIPTION_CHARS = 160;

/**
 * The questions of one half (A by default: the half rankings are tuned on) whose tool the node's lexical
 * ranking does not put among its first 10 over the 500-tool pool: the question, the tool's rank, its
 * description and the two tools ranked first, to read and categorise by hand (bench/tool-selection/README.md).
 */
function printMisses(halfName: 'A' | 'B'): void {
  const { small, half } = apiZooPool();
  const byName = new Map<string, FunctionTool>(small.map((tool) => [tool.function.name, tool]));
  const index = new ToolIndex(small.map((tool) => toolDocument(tool)));
  const line = (name: string | undefined) =>
    name === undefined
      ? '(none)'
      : `${name} :: ${(byName.get(name)?.function.description ?? '').slice(0, DESCRIPTION_CHARS).replace(/\s+/g, ' ')}`;
  let misses = 0;
  for (const { question, tool } of half(halfName)) {
    const ranked = index.rank(question).map((entry) => entry.name);
    const position = ranked.indexOf(tool);
    if (position >= 0 && position < SHOWN) continue;
    misses++;
    console.log(`#${misses} [rank ${position < 0 ? 'none' : position + 1}] ${question}`);
    console.log(`  right: ${line(tool)}\n  1st:   ${line(ranked[0])}\n  2nd:   ${line(ranked[1])}\n`);
  }
  console.log(`${misses} of ${half(halfName).length} questions of half ${halfName} missed at ${SHOWN}`);
}

if (require.main === module) printMisses(process.argv[2] === 'B' ? 'B' : 'A');
