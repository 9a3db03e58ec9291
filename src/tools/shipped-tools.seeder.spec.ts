import { AuditRecordEntity } from '../audit/audit-record.entity';
import { AuditService } from '../audit/audit.service';
import { DataSource, IsNull } from 'typeorm';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { TestingModule } from '@nestjs/testing';
import { sqliteTestingModule } from '../../test/support/sqlite-testing-module';
import { ShippedToolsSeeder } from './shipped-tools.seeder';
import type { ShippedTool, ToolImplementations } from './tool-implementations';
import { ToolEntity } from './tool.entity';
import { ToolVersionEntity } from './tool-version.entity';

const clock = (description: string, properties: Record<string, unknown> = {}): ShippedTool => ({
  name: 'clock',
  description,
  category: 'time',
  effect: 'read_only',
  implementationType: 'builtin',
  functionSchema: {
    type: 'function',
    function: { name: 'clock', description, parameters: { type: 'object', properties } },
  },
});

/** A seeder over a real SQLite database with every migration, shipping whatever `shipped` holds at each start. */
describe(ShippedToolsSeeder.name, () => {
  let moduleRef: TestingModule;
  let dataSource: DataSource;
  let shipped: ShippedTool[];
  const start = () =>
    new ShippedToolsSeeder(
      dataSource.getRepository(ToolEntity),
      dataSource.getRepository(ToolVersionEntity),
      {
        shippedTools: () => shipped,
      } as unknown as ToolImplementations,
      new AuditService(dataSource.getRepository(AuditRecordEntity)),
    ).onApplicationBootstrap();
  const seed = () => dataSource.getRepository(ToolEntity).findOneByOrFail({ name: 'clock', userId: IsNull() });
  const versions = async () =>
    (await dataSource.getRepository(ToolVersionEntity).find({ where: { toolId: (await seed()).id } })).sort(
      (a, b) => a.version - b.version,
    );

  beforeEach(async () => {
    moduleRef = await sqliteTestingModule([TypeOrmModule.forFeature([ToolEntity, ToolVersionEntity])]);
    dataSource = moduleRef.get(DataSource);
    shipped = [clock('Tells the time')];
  });

  afterEach(() => moduleRef.close());

  it('should not add a version when the code ships the same builtin again', async () => {
    await start();
    await start();

    expect((await seed()).version).toBe(1);
    expect((await versions()).map((row) => [row.version, row.seeded])).toEqual([[1, true]]);
  });

  it('should audit seeding and each new version of a builtin with the system as the actor', async () => {
    await start();
    await start();
    shipped = [clock('Changed')];
    await start();

    const records = await dataSource.getRepository(AuditRecordEntity).find({ order: { afterVersion: 'ASC' } });
    expect(records.map((row) => [row.action, row.objectName, row.beforeVersion, row.afterVersion])).toEqual([
      ['create', 'clock', null, 1],
      ['update', 'clock', 1, 2],
    ]);
    expect(records.map((row) => [row.actorUserId, row.actorKeyId])).toEqual([
      ['system', 'system'],
      ['system', 'system'],
    ]);
  });

  it('should leave no tool without its version 1 when storing the version fails, and seed it whole at the next start', async () => {
    // Fails as the statement runs. Not a dropped table: better-sqlite3 then fails while preparing, with a raw
    // SqliteError whose class comes from the first spec file that loaded the driver in this Jest worker, which
    // rejects.toThrow does not take for an error ("did not throw") whenever another spec ran there first.
    await dataSource.query(
      "CREATE TRIGGER refuse_versions BEFORE INSERT ON tool_versions BEGIN SELECT RAISE(ABORT, 'no version today'); END",
    );

    await expect(start()).rejects.toThrow('no version today');

    expect(await dataSource.getRepository(ToolEntity).countBy({ name: 'clock', userId: IsNull() })).toBe(0);
    await dataSource.query('DROP TRIGGER refuse_versions');
    await start();
    expect((await versions()).map((row) => [row.version, row.seeded])).toEqual([[1, true]]);
  });

  it('should make a changed builtin the next version and keep the version a run may have pinned as it was', async () => {
    await start();
    shipped = [clock('Tells the time in a zone', { zone: { type: 'string' } })];

    await start();

    const tool = await seed();
    expect(tool).toMatchObject({ version: 2, description: 'Tells the time in a zone' });
    expect(tool.functionSchema.function.parameters).toEqual({
      type: 'object',
      properties: { zone: { type: 'string' } },
    });
    const [first, second] = await versions();
    expect(first).toMatchObject({ version: 1, description: 'Tells the time', seeded: true });
    expect(first.functionSchema.function.parameters).toEqual({ type: 'object', properties: {} });
    expect(second).toMatchObject({ version: 2, description: 'Tells the time in a zone', seeded: true });
    expect(second.functionSchema).toEqual(tool.functionSchema);
  });

  it('should follow the code through several releases, one version each', async () => {
    await start();
    shipped = [clock('Second release')];
    await start();
    shipped = [clock('Third release')];
    await start();
    await start();

    expect((await versions()).map((row) => [row.version, row.description])).toEqual([
      [1, 'Tells the time'],
      [2, 'Second release'],
      [3, 'Third release'],
    ]);
  });

  it('should add no second version when another process wrote the changed builtin after this one read it', async () => {
    await start();
    shipped = [clock('Changed')];
    const readBeforeTheOther = await seed();
    await start();
    const tools = dataSource.getRepository(ToolEntity);
    const late = new ShippedToolsSeeder(
      Object.assign(Object.create(tools) as typeof tools, { findOneBy: () => Promise.resolve(readBeforeTheOther) }),
      dataSource.getRepository(ToolVersionEntity),
      { shippedTools: () => shipped } as unknown as ToolImplementations,
      new AuditService(dataSource.getRepository(AuditRecordEntity)),
    );

    await late.onApplicationBootstrap();

    expect((await seed()).version).toBe(2);
    expect((await versions()).map((row) => row.version)).toEqual([1, 2]);
  });

  it('should leave a builtin a person has edited as they left it', async () => {
    await start();
    const tool = await seed();
    await dataSource.getRepository(ToolEntity).update({ id: tool.id }, { description: 'Edited by hand', version: 2 });
    await dataSource.getRepository(ToolVersionEntity).save({
      ...(await versions())[0],
      id: 'edited-by-hand',
      version: 2,
      description: 'Edited by hand',
      seeded: false,
    });
    shipped = [clock('Changed')];

    await start();

    expect(await seed()).toMatchObject({ version: 2, description: 'Edited by hand' });
    expect((await versions()).map((row) => row.version)).toEqual([1, 2]);
  });

  it("should count the first version of a seed stored before versions were marked as the seeder's", async () => {
    await start();
    const own = { ...(await versions())[0], id: 'own-version', toolId: 'own-tool', seeded: false };
    await dataSource
      .getRepository(ToolEntity)
      .save({ ...(await seed()), id: 'own-tool', userId: 'alice', isPublic: false, publicName: null });
    await dataSource.getRepository(ToolVersionEntity).save(own);
    await dataSource.undoLastMigration();
    await dataSource.runMigrations();
    shipped = [clock('Changed')];

    await start();

    expect((await seed()).version).toBe(2);
    expect(await dataSource.getRepository(ToolVersionEntity).findOneByOrFail({ id: 'own-version' })).toMatchObject({
      seeded: false,
    });
  });
});
