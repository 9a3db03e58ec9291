import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { parseTestCommand, UsageError } from './cli/cli-args';
import { type Output, runTestCommand, type Service } from './cli/run-test-command';
import { loadConfigWith } from './config/app-config';
import { loadDotEnv } from './config/dot-env';
import { errorMessage } from './shared/error-text';

const output: Output = {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
};

/**
 * An embedded ToolFlow for one command: SQLite in a temp folder, an admin key of its own, listening on a free
 * local port; the providers are the environment's (a replayed case contacts none).
 */
async function startEmbedded(): Promise<{ service: Service; close: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'toolflow-cli-'));
  const key = `tf_cli_${randomBytes(16).toString('hex')}`;
  const config = loadConfigWith({
    DATABASE_URL: `sqlite:${join(dir, 'toolflow.sqlite')}`,
    ADMIN_API_KEY: key,
    REDIS_URL: undefined,
    ROLE: 'all',
    LOG_LEVEL: 'error',
  });
  const { createApp } = await import('./bootstrap');
  const app = await createApp(config);
  await app.listen(0, '127.0.0.1');
  const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  return {
    service: { url, key },
    close: async () => {
      await app.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function main(argv: readonly string[]): Promise<number> {
  const command = parseTestCommand(argv);
  if (command.url !== undefined && command.key !== undefined) {
    return runTestCommand(command, { url: command.url.replace(/\/+$/, ''), key: command.key }, output);
  }
  const embedded = await startEmbedded();
  try {
    return await runTestCommand(command, embedded.service, output);
  } finally {
    await embedded.close();
  }
}

loadDotEnv();
main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    output.err(error instanceof UsageError ? error.message : `toolflow: ${errorMessage(error)}`);
    process.exit(2);
  },
);
