import 'reflect-metadata';
import { Logger } from 'nestjs-pino';
import { createApp } from './bootstrap';
import { ConfigError, loadConfig } from './config/app-config';
import { loadDotEnv } from './config/dot-env';

async function main(): Promise<void> {
  loadDotEnv();
  const config = loadConfig();
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
