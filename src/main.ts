import 'reflect-metadata';
import { ConfigError, loadConfig } from './config/app-config';
import { loadDotEnv } from './config/dot-env';
import { startTracing } from './telemetry/tracing-sdk';

async function main(): Promise<void> {
  loadDotEnv();
  const config = loadConfig();
  startTracing(config.telemetry);
  // Loaded only now: the tracing SDK must patch http, express and mysql2 before the app requires them.
  const { createApp } = await import('./bootstrap');
  const { Logger } = await import('nestjs-pino');
  const app = await createApp(config);
  // Shutdown hooks drain runs (a worker hands them back) and close streams; then the process ends with 0.
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      app.close().then(
        () => process.exit(0),
        (error: unknown) => {
          process.stderr.write(`${String((error as Error).stack ?? error)}\n`);
          process.exit(1);
        },
      );
    });
  }
  await app.listen(config.port, config.host);
  const address = await app.getUrl();
  app.get(Logger).log(`ToolFlow listening on ${address} (docs: ${address}/api/docs)`, 'Bootstrap');
}

process.on('unhandledRejection', (reason) => {
  process.stderr.write(`${JSON.stringify({ level: 'error', msg: 'unhandled rejection', reason: String(reason) })}\n`);
});

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof ConfigError ? error.message : String((error as Error).stack ?? error)}\n`);
  process.exit(1);
});
