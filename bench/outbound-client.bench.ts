import { spawn } from 'node:child_process';
import http from 'node:http';
import { once } from 'node:events';
import { median } from './median';
import { OutboundClient } from '../src/outbound/outbound-client';

const CALLS = 2_000;
const ROUNDS = 5;
const BODY = JSON.stringify({ temperature: 21.5, city: 'Oslo', conditions: 'clear', wind: { speed: 3, dir: 'NW' } });

// The server runs in its own process, so the CPU measured here is the client's alone.
const SERVER = `
const body = ${JSON.stringify(BODY)};
const server = require('node:http').createServer((request, response) => {
  request.resume();
  request.on('end', () => response.end(body));
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
`;

const startServer = async (): Promise<{ origin: string; stop: () => void }> => {
  const child = spawn(process.execPath, ['-e', SERVER], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [chunk] = (await once(child.stdout, 'data')) as [Buffer];
  return { origin: `http://127.0.0.1:${chunk.toString().trim()}`, stop: () => child.kill() };
};

/** The bare baseline: node:http with a keep-alive agent, the body collected, nothing checked. */
const bareGet = (agent: http.Agent, url: string): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    http
      .get(url, { agent }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve(Buffer.concat(chunks)));
        response.on('error', reject);
      })
      .on('error', reject);
  });

/** CPU (user + system) and wall time per call, in microseconds, over `CALLS` sequential calls. */
const measure = async (call: () => Promise<unknown>): Promise<{ cpuUs: number; wallUs: number }> => {
  for (let i = 0; i < 200; i++) await call();
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < CALLS; i++) await call();
  const used = process.cpuUsage(cpu);
  return { cpuUs: (used.user + used.system) / CALLS, wallUs: ((performance.now() - started) * 1000) / CALLS };
};

const round = (value: number, digits = 2): number => Number(value.toFixed(digits));

/**
 * CPU per outbound GET of a small JSON body over a kept-alive loopback connection: the service's client
 * (axios with the guarded agents, the SSRF checks, the response cap) against bare node:http, alternated
 * round by round in one process run; medians of the rounds.
 */
export async function benchOutboundClient(): Promise<Record<string, number>> {
  const server = await startServer();
  const url = `${server.origin}/weather`;
  const agent = new http.Agent({ keepAlive: true });
  const client = new OutboundClient({
    allowPrivate: ['127.0.0.1/32'],
    defaultTimeoutMs: 10_000,
    maxResponseBytes: 1024 * 1024,
    maxRedirects: 5,
    userAgent: 'toolflow-bench',
  });
  const bare: Array<{ cpuUs: number; wallUs: number }> = [];
  const guarded: Array<{ cpuUs: number; wallUs: number }> = [];
  try {
    for (let round = 0; round < ROUNDS; round++) {
      bare.push(await measure(() => bareGet(agent, url)));
      guarded.push(await measure(() => client.request({ url })));
    }
  } finally {
    agent.destroy();
    server.stop();
  }
  const cpu = (samples: typeof bare) => median(samples.map((sample) => sample.cpuUs));
  const wall = (samples: typeof bare) => median(samples.map((sample) => sample.wallUs));
  return {
    'bare node:http CPU µs/call': round(cpu(bare)),
    'OutboundClient CPU µs/call': round(cpu(guarded)),
    'CPU ratio (client / bare)': round(cpu(guarded) / cpu(bare)),
    'bare node:http wall µs/call': round(wall(bare)),
    'OutboundClient wall µs/call': round(wall(guarded)),
    'wall ratio (client / bare)': round(wall(guarded) / wall(bare)),
  };
}

if (require.main === module) {
  benchOutboundClient()
    .then((results) => console.table(results))
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
}
