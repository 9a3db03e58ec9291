import 'reflect-metadata';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createApp } from '../src/bootstrap';
import { loadConfig } from '../src/config/app-config';
import { buildOpenApiDocument } from '../src/openapi/openapi-document';

/** Writes the OpenAPI document of the app to the given file without listening (a throwaway SQLite database). */
async function main(target: string): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'toolflow-openapi-'));
  try {
    const app = await createApp(
      loadConfig({
        NODE_ENV: 'production',
        LOG_LEVEL: 'silent',
        DATABASE_URL: `sqlite:${join(dir, 'openapi.sqlite')}`,
      }),
    );
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, `${JSON.stringify(buildOpenApiDocument(app), null, 2)}\n`);
    await app.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main(process.argv[2] ?? 'openapi.json').catch((error: unknown) => {
  process.stderr.write(`${String((error as Error).stack ?? error)}\n`);
  process.exit(1);
});
