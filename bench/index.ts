import { benchArgumentValidation } from './argument-validation.bench';
import { QUICK } from './bench-size';
import { benchClientCost } from './client-cost.bench';
import { benchCodeTool } from './code-tool.bench';
import { benchEngineOverhead } from './engine-overhead.bench';
import { benchOutboundClient } from './outbound-client.bench';
import { benchProviderFetch } from './provider-fetch.bench';
import { benchProviderOverhead } from './provider-overhead.bench';
import { benchPythonTool } from './python-tool.bench';
import { benchRunCost } from './run-cost.bench';
import { benchSoak } from './soak.bench';
import { benchThroughput } from './throughput.bench';
import { benchQueueLoad } from './queue-load.bench';
import { benchToolSelection } from './tool-selection.bench';
import { benchToolSelectionEmbeddings } from './tool-selection-embeddings.bench';

/**
 * `npm run bench`: every benchmark, one after the other, numbers printed as a table. `npm run bench:quick`
 * (BENCH_QUICK=1): only the cost per run, throughput, soak and queue load, each from fewer runs (bench-size.ts).
 */
async function main(): Promise<void> {
  const others: Array<[string, () => Promise<Record<string, unknown>>]> = [
    ['argument validation', benchArgumentValidation],
    ['code tool', benchCodeTool],
    ['Python code tool beside JavaScript (cold: a new sandbox process; warm: medians)', benchPythonTool],
    ['engine overhead', benchEngineOverhead],
    ['provider adapter overhead per call (vs the bare official SDK)', benchProviderOverhead],
    ['OpenAI SDK call over undici fetch vs nodeHttpFetch (CPU per streamed call)', benchProviderFetch],
    ['outbound HTTP client per call (axios + SSRF guard vs bare node:http)', benchOutboundClient],
  ];
  const suites: Array<[string, () => Promise<Record<string, unknown>>]> = [
    ...(QUICK ? [] : others),
    ['cost per run', benchRunCost],
    ['cost per run, client clock (ToolFlow in its own process; bare loop with an in-process tool)', benchClientCost],
  ];
  for (const [name, run] of suites) {
    const results = await run();
    console.log(`\n${name}`);
    console.table(results);
  }
  console.log('\nthroughput (0 ms model, one tool round per run, ?wait=true clients posting again at each answer)');
  console.table(await benchThroughput());
  console.log('\nsoak (one embedded process on SQLite; heap used after forced GC)');
  console.table(await benchSoak());
  // Skipped (with a note) without TEST_REDIS_URL and a MySQL/MariaDB URL.
  const load = await benchQueueLoad();
  if (Object.keys(load).length > 0) {
    console.log('\nqueue load (1 api + 2 workers vs embedded)');
    console.table(load);
  }
  if (QUICK) return;
  console.log('\ntool selection (recall of the right tool among the k offered; time of one ranking)');
  console.table(await benchToolSelection());
  console.log('\ntool selection with embeddings (local Universal Sentence Encoder lite over a local /v1/embeddings)');
  console.table(await benchToolSelectionEmbeddings());
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
