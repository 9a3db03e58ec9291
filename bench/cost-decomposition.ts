import { performance } from 'node:perf_hooks';
import { startChildApp, stopChildApp } from '../test/support/child-app';
import { OpenAITestServer, reply, type Turn } from '../test/support/openai-test-server';
import { ADMIN_KEY } from '../test/support/test-app';
import { startToolBackend } from '../test/support/tool-backend';
import { httpToolBody, llmEnv } from '../test/support/workflow-fixtures';
import { BareLoopProcess, processCpuMs } from './client-cost.bench';
import { median } from './median';
import { benchDatabases, CALLS_PER_ROUND, conversation, definition, pingParameters, ROUNDS } from './run-cost.bench';

/**
 * Where a REST run's time and CPU go, by difference: ToolFlow in its own process runs, alternating, (1) the
 * run-cost task with its http tool (a loopback request per call), (2) the same task with the builtin
 * `calculator` (in-process, like the bare loop's tool), (3) a workflow without an LLM node (start → end: the
 * REST request, the run's records and the answer), and the bare `openai` loop in its own process with its tool
 * in-process. Client-clock ms and server CPU ms (/proc) per run, medians of blocks, all four alternating.
 * `node -r @swc-node/register bench/cost-decomposition.ts [sqlite|mariadb] [blocks] [runs per block] [warm-up]`
 */
const [label = 'sqlite', blocksArg = '10', perBlockArg = '20', warmUpArg = '200'] = process.argv.slice(2);
/** Runs of each variant before the timed blocks: V8 keeps optimizing ToolFlow's code for hundreds of runs. */
const WARM_UP = Number(warmUpArg);

const calculatorConversation = (): Turn[] => [
  ...Array.from({ length: ROUNDS }, (_, round) =>
    reply.toolCalls(
      Array.from({ length: CALLS_PER_ROUND }, (__, call) => ({
        name: 'calculator',
        id: `call_${round}_${call}`,
        arguments: { expression: `${round} + ${call}` },
      })),
    ),
  ),
  reply.text('All three rounds done.'),
];

const withTool = (name: string, tool: string) => ({
  ...definition,
  name,
  nodes: definition.nodes.map((node) =>
    node.type === 'llm' ? { ...node, data: { ...node.data, tools: [tool] } } : node,
  ),
});

const noLlm = {
  name: 'no-llm',
  inputs: definition.inputs,
  nodes: [
    { id: 'start', type: 'start', data: {} },
    { id: 'end', type: 'end', data: { outputs: { answer: '{{inputs.question}}' } } },
  ],
  edges: [{ source: 'start', target: 'end' }],
};

async function main(): Promise<void> {
  const database = benchDatabases().find((candidate) => candidate.label === label)!;
  const llm = await OpenAITestServer.start();
  const backend = await startToolBackend();
  const data = await database.create();
  const app = await startChildApp(llmEnv(llm, { DATABASE_URL: data.url, LOG_LEVEL: 'silent' }));
  const pid = app.process.pid!;
  const bare = new BareLoopProcess(llm.baseUrl);
  const headers = { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' };
  const post = (path: string, body: unknown) =>
    fetch(`${app.url}/api/v1${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  try {
    await post('/tools', httpToolBody('ping', `${backend.origin}/ping?id={id}`, { parameters: pingParameters }));
    const create = async (body: unknown) => ((await (await post('/workflows', body)).json()) as { id: string }).id;
    const variants = [
      { name: 'http tool (run-cost task)', id: await create(withTool('http', 'ping')), script: conversation },
      {
        name: 'in-process builtin tool',
        id: await create(withTool('calc', 'calculator')),
        script: calculatorConversation,
      },
      { name: 'no LLM node (start → end)', id: await create(noLlm), script: (): Turn[] => [] },
    ].map((variant) => ({ ...variant, wall: [] as number[], cpu: [] as number[] }));
    const run = async (variant: (typeof variants)[number]) => {
      llm.reset();
      llm.script(variant.script());
      const response = await post(`/workflows/${variant.id}/runs?wait=true`, { inputs: { question: 'Go.' } });
      const body = (await response.json()) as { status?: string };
      if (body.status !== 'succeeded') throw new Error(JSON.stringify(body));
    };
    const bareRuns = { wall: [] as number[], cpu: [] as number[] };
    const runBare = async () => {
      llm.reset();
      llm.script(conversation());
      return bare.run();
    };
    for (let index = 0; index < WARM_UP; index++) {
      for (const variant of variants) await run(variant);
      await runBare();
    }
    for (let block = 0; block < Number(blocksArg); block++) {
      for (const variant of block % 2 === 0 ? variants : [...variants].reverse()) {
        const cpu = processCpuMs(pid);
        const start = performance.now();
        for (let index = 0; index < Number(perBlockArg); index++) await run(variant);
        variant.wall.push((performance.now() - start) / Number(perBlockArg));
        variant.cpu.push((processCpuMs(pid) - cpu) / Number(perBlockArg));
      }
      let wall = 0;
      let cpu = 0;
      for (let index = 0; index < Number(perBlockArg); index++) {
        const result = await runBare();
        wall += result.wallMs;
        cpu += result.cpuMs;
      }
      bareRuns.wall.push(wall / Number(perBlockArg));
      bareRuns.cpu.push(cpu / Number(perBlockArg));
    }
    console.table([
      ...variants.map((variant) => ({
        variant: variant.name,
        'ms / run': median(variant.wall).toFixed(2),
        'CPU ms / run': median(variant.cpu).toFixed(2),
      })),
      {
        variant: 'bare openai loop, tool in-process (its own clock and CPU)',
        'ms / run': median(bareRuns.wall).toFixed(2),
        'CPU ms / run': median(bareRuns.cpu).toFixed(2),
      },
    ]);
  } finally {
    bare.close();
    await stopChildApp(app, 'SIGTERM');
    await data.drop();
    await llm.close();
    await backend.close();
  }
}

void main();
