import type { DynamicModule, ForwardReference, Provider, Type } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { TypeOrmModule } from '@nestjs/typeorm';
import { loadConfig } from '../../src/config/app-config';
import { ConfigModule } from '../../src/config/config.module';
import { databaseOptions } from '../../src/database-options';

type Import = Type | DynamicModule | Promise<DynamicModule> | ForwardReference;

/** A Nest testing module of the given modules over a fresh in-memory SQLite database with every migration applied. */
export async function sqliteTestingModule(
  imports: Import[],
  options: {
    env?: Record<string, string>;
    providers?: Provider[];
    overrides?: Array<[token: unknown, value: unknown]>;
  } = {},
): Promise<TestingModule> {
  const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: 'sqlite::memory:', ...options.env });
  const builder = Test.createTestingModule({
    imports: [ConfigModule.forRoot(config), TypeOrmModule.forRoot(databaseOptions(config.database, true)), ...imports],
    providers: options.providers ?? [],
  });
  for (const [token, value] of options.overrides ?? []) builder.overrideProvider(token).useValue(value);
  const moduleRef = await builder.compile();
  await moduleRef.init();
  return moduleRef;
}
