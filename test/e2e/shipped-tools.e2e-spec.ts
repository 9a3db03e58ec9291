import { AuditRecordEntity } from '../../src/audit/audit-record.entity';
import { AuditService } from '../../src/audit/audit.service';
import { DataSource, IsNull } from 'typeorm';
import { loadConfig } from '../../src/config/app-config';
import { databaseOptions } from '../../src/database-options';
import { ShippedToolsSeeder } from '../../src/tools/shipped-tools.seeder';
import type { ShippedTool, ToolImplementations } from '../../src/tools/tool-implementations';
import { ToolEntity } from '../../src/tools/tool.entity';
import { ToolVersionEntity } from '../../src/tools/tool-version.entity';
import { throwawayDatabase } from '../support/test-app';

const clock = (description: string): ShippedTool => ({
  name: 'clock',
  description,
  category: 'time',
  effect: 'read_only',
  implementationType: 'builtin',
  functionSchema: { type: 'function', function: { name: 'clock', description, parameters: { type: 'object' } } },
});

describe('Shipped tools across releases (e2e)', () => {
  let database: { url: string; drop: () => Promise<void> };
  let processes: DataSource[];

  beforeAll(async () => {
    database = await throwawayDatabase();
    const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: database.url });
    const first = await new DataSource(databaseOptions(config.database, false)).initialize();
    await first.runMigrations();
    processes = [
      first,
      await new DataSource(databaseOptions(config.database, false)).initialize(),
      await new DataSource(databaseOptions(config.database, false)).initialize(),
    ];
  });

  afterAll(async () => {
    for (const dataSource of processes) await dataSource.destroy();
    await database.drop();
  });

  const start = (dataSource: DataSource, shipped: ShippedTool) =>
    new ShippedToolsSeeder(
      dataSource.getRepository(ToolEntity),
      dataSource.getRepository(ToolVersionEntity),
      {
        shippedTools: () => [shipped],
      } as unknown as ToolImplementations,
      new AuditService(dataSource.getRepository(AuditRecordEntity)),
    ).onApplicationBootstrap();

  it('should give a builtin changed by a release one new version, however many processes start, and keep the old one', async () => {
    const [first] = processes;
    await start(first, clock('Tells the time'));
    await start(first, clock('Tells the time'));

    const release = (dataSource: DataSource) => start(dataSource, clock('Tells the time in UTC'));
    // better-sqlite3 waits for a lock synchronously, so processes sharing one SQLite file cannot overlap in one
    // Node process; on MySQL they start at once.
    if (database.url.startsWith('mysql')) await Promise.all(processes.map(release));
    else for (const dataSource of processes) await release(dataSource);

    const tool = await first.getRepository(ToolEntity).findOneByOrFail({ name: 'clock', userId: IsNull() });
    expect(tool).toMatchObject({ version: 2, description: 'Tells the time in UTC' });
    const versions = await first.getRepository(ToolVersionEntity).find({
      where: { toolId: tool.id },
      order: { version: 'ASC' },
    });
    expect(versions.map((row) => [row.version, row.description, row.functionSchema.function.description])).toEqual([
      [1, 'Tells the time', 'Tells the time'],
      [2, 'Tells the time in UTC', 'Tells the time in UTC'],
    ]);
  });
});
