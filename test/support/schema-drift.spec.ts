import { DataSource } from 'typeorm';
import { databaseOptions } from '../../src/database-options';
import { findSchemaDrift } from './schema-drift';

describe(findSchemaDrift.name, () => {
  let dataSource: DataSource;

  beforeEach(async () => {
    dataSource = await new DataSource(
      databaseOptions({ type: 'sqlite', database: ':memory:', url: 'sqlite::memory:' }, false),
    ).initialize();
    await dataSource.runMigrations();
  });

  afterEach(() => dataSource.destroy());

  it('should find the entities and the schema the migrations build on SQLite alike, but for listed quirks', async () => {
    const drift = await findSchemaDrift(dataSource);

    expect(drift.unexpected).toEqual([]);
    expect(drift.unexplainedQueries).toEqual([]);
  });

  it('should report an index the entity declares and the schema lacks, and the query that would add it', async () => {
    await dataSource.query('DROP INDEX "idx_runs_status"');

    const drift = await findSchemaDrift(dataSource);

    expect(drift.unexpected).toEqual([
      { table: 'runs', subject: 'index idx_runs_status', kind: 'other', database: '-', entity: '(status)' },
    ]);
    expect(drift.unexplainedQueries).toContain('CREATE INDEX "idx_runs_status" ON "runs" ("status") ');
  });
});
