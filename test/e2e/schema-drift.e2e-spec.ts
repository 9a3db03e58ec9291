import { DataSource } from 'typeorm';
import { loadConfig } from '../../src/config/app-config';
import { databaseOptions } from '../../src/database-options';
import { findSchemaDrift } from '../support/schema-drift';
import { throwawayDatabase } from '../support/test-app';

describe('Schema drift (e2e)', () => {
  it('should find the entities and the schema the migrations build alike on the configured database, but for listed quirks', async () => {
    const database = await throwawayDatabase();
    const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: database.url });
    const dataSource = await new DataSource(databaseOptions(config.database, false)).initialize();
    try {
      await dataSource.runMigrations();

      const drift = await findSchemaDrift(dataSource);

      expect(drift.unexpected).toEqual([]);
      expect(drift.unexplainedQueries).toEqual([]);
    } finally {
      await dataSource.destroy();
      await database.drop();
    }
  });
});
