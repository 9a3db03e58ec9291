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
