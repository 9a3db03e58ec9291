import 'reflect-metadata';
import { ConfigError, loadConfig } from './config/app-config';
import { loadDotEnv } from './config/dot-env';
import { startTracing } from './telemetry/tracing-sdk';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { listenMessage } from './listen-message';
import { HttpDrain } from './common/http/http-drain';
import { ShutdownGrace } from './config/shutdown-grace';

const LISTEN_BACKLOG = 4096;

async function main(): Promise<void> {
  loadDotEnv();
  const config = loadConfig();
  startTracing(config.telemetry);
  // Loaded only now: the tracing SDK must patch http, express and mysql2 before the app requires them.
  const { createApp } = await import('./bootstrap');
  const { Logger } = await import('nestjs-pino');
  const app = await createApp(config);
  const drain = new HttpDrain(app.getHttpServer() as Server);
  // Shutdown hooks drain runs (a worker hands them back) and close streams; then the process ends with 0.
  // Meanwhile the HTTP server moves clients off their kept-alive sockets and cuts what is left at the grace limit.
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      // One grace period for the whole shutdown: the HTTP drain and every hook that waits count from here.
      app.get(ShutdownGrace).begin();
      drain.begin(config.shutdownGraceMs);
      app.close().then(
        () => process.exit(0),
        (error: unknown) => {
          process.stderr.write(`${String((error as Error).stack ?? error)}\n`);
          process.exit(1);
        },
      );
    });
  }
  // Node's default backlog (511) is too short for a burst such as 1000 run POSTs at once while the event loop is
  // busy: connections past it are dropped and reset a minute later. The kernel caps it at net.core.somaxconn.
  // Nest passes arguments after the host on to http.Server#listen(port, host, backlog).
  const listen = app.listen.bind(app) as unknown as (port: number, host: string, backlog: number) => Promise<unknown>;
  await listen(config.port, config.host, LISTEN_BACKLOG);
  const bound = (app.getHttpServer() as Server).address() as AddressInfo;
  app.get(Logger).log(listenMessage(bound), 'Bootstrap');
}

process.on('unhandledRejection', (reason) => {
  process.stderr.write(`${JSON.stringify({ level: 'error', msg: 'unhandled rejection', reason: String(reason) })}\n`);
});

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof ConfigError ? error.message : String((error as Error).stack ?? error)}\n`);
  process.exit(1);
});
