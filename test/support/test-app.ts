import type { INestApplication } from '@nestjs/common';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import type { App } from 'supertest/types';
import { createApp } from '../../src/bootstrap';
import { type AppConfig, loadConfig } from '../../src/config/app-config';
import { throwawayMysqlDatabase } from './throwaway-mysql';

export const ADMIN_KEY = 'tf_test_admin_key_0123456789abcdef';

export interface TestApp {
  app: INestApplication;
  http: App;
  config: AppConfig;
  /** `mysql` when DATABASE_URL points at MySQL/MariaDB, else a throwaway SQLite file. */
  dialect: 'mysql' | 'sqlite';
  /** The database this app runs on; pass it to `startTestApp` to boot a second app on the same data. */
  databaseUrl: string;
  /** An API key with role user (a fresh user id each call). */
  createUserKey(userId?: string): Promise<string>;
  close(): Promise<void>;
}

/** A database of its own for one test file: a new MySQL schema on DATABASE_URL's server, or a temp SQLite file. */
export async function throwawayDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const base = process.env.DATABASE_URL;
  if (base && /^(mysql|mariadb):\/\//.test(base)) return throwawayMysqlDatabase(base);
  const dir = mkdtempSync(join(tmpdir(), 'toolflow-e2e-'));
  return {
    url: `sqlite:${join(dir, 'e2e.sqlite')}`,
    drop: () => Promise.resolve(rmSync(dir, { recursive: true, force: true })),
  };
}

export interface TestAppOptions {
  /** Reuse this database (e.g. another TestApp's `databaseUrl`) instead of a throwaway one; it is not dropped on close. */
  databaseUrl?: string;
  /** Changes the URL the app connects with (e.g. through a TcpProxy); the database is still created and dropped directly. */
  connectVia?: (databaseUrl: string) => string;
}

/** Boots the real app (same wiring as main.ts) on an ephemeral port-less server for supertest. */
export async function startTestApp(env: Record<string, string> = {}, options: TestAppOptions = {}): Promise<TestApp> {
  const database = options.databaseUrl
    ? { url: options.databaseUrl, drop: () => Promise.resolve() }
    : await throwawayDatabase();
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    DATABASE_URL: options.connectVia ? options.connectVia(database.url) : database.url,
    ADMIN_API_KEY: ADMIN_KEY,
    OUTBOUND_ALLOW_PRIVATE: '',
    // Tests poll the API fast with one key; the tests of the limit itself set their own.
    RATE_LIMIT_PER_MINUTE: '1000000',
    ...env,
  });
  const app = await createApp(config);
  await app.init();
  const http = app.getHttpServer() as App;
  let counter = 0;
  return {
    app,
    http,
    config,
    dialect: config.database.type,
    databaseUrl: database.url,
    async createUserKey(userId?: string) {
      counter += 1;
      const response = await request(http)
        .post('/api/v1/api-keys')
        .set('Authorization', `Bearer ${ADMIN_KEY}`)
        .send({ name: `user-${counter}`, role: 'user', ...(userId ? { user_id: userId } : {}) })
        .expect(201);
      return (response.body as { key: string }).key;
    },
    async close() {
      await app.close();
      await database.drop();
    },
  };
}

export const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });
