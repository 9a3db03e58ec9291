import { DataSource } from 'typeorm';
import { databaseOptions } from '../../src/database-options';
import { loadConfig } from '../../src/config/app-config';
import { migrations } from '../../migrations';
import { startTestApp, type TestApp } from '../support/test-app';

describe('Migrations (e2e)', () => {
  let sut: TestApp;

  beforeAll(async () => {
    sut = await startTestApp();
  });

  afterAll(async () => {
    await sut.close();
  });

  it('should revert every migration and apply them again on the same database', async () => {
    const config = loadConfig({ DATABASE_URL: sut.config.database.url });
    const dataSource = new DataSource(databaseOptions(config.database, false));
    await dataSource.initialize();
    try {
      const tables = ['api_keys', 'node_runs', 'run_events', 'runs', 'tool_call_logs', 'tools', 'workflows'];
      const existing = async () => {
        const queryRunner = dataSource.createQueryRunner();
        try {
          const found = await Promise.all(tables.map((table) => queryRunner.hasTable(table)));
          return tables.filter((_table, index) => found[index]);
        } finally {
          await queryRunner.release();
        }
      };
      expect(await existing()).toEqual(tables);
      for (let index = 0; index < migrations.length; index += 1) await dataSource.undoLastMigration();
      expect(await existing()).toEqual([]);
      const applied = await dataSource.runMigrations();
      expect(applied.map((migration) => migration.name)).toEqual(migrations.map((migration) => migration.name));
      expect(await existing()).toEqual(tables);
    } finally {
      await dataSource.destroy();
    }
  });
});
