import { Column, type DataSource, Entity, PrimaryColumn } from 'typeorm';
import { entityDataSource } from '../../test/support/entity-data-source';
import { countStatements } from '../../test/support/statement-counter';
import { databasesAtHand } from '../../test/support/throwaway-mysql';
import { inOrder, insertNewStatement, updateStatement } from './plain-sql';

@Entity('steps')
class StepRow {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Column({ type: 'varchar', length: 16 })
  status!: string;
}

const DATABASES = databasesAtHand('tf_in_order');

describe.each(DATABASES)(`${inOrder.name} (%s)`, (_name, database) => {
  let dataSource: DataSource;
  let drop: () => Promise<void>;

  beforeEach(async () => {
    const fresh = await database();
    drop = fresh.drop;
    // The app's MySQL connection allows several statements in one query (database-options.ts).
    const { options } = fresh;
    dataSource = await entityDataSource(
      [StepRow],
      options.type === 'mysql' ? { ...options, multipleStatements: true } : options,
    );
  });

  afterEach(async () => {
    await dataSource.destroy();
    await drop();
  });

  const statusOf = async (id: string) => (await dataSource.manager.findOneBy(StepRow, { id }))?.status;

  it('should store a new row and then change another, in one round trip on MySQL', async () => {
    const { manager } = dataSource;
    await manager.insert(StepRow, { id: 'run', status: 'running' });
    const counter = countStatements(dataSource);

    await inOrder(manager, [
      insertNewStatement(manager, StepRow, [{ id: 'end', status: 'succeeded' }]),
      updateStatement(manager, StepRow, { id: 'run' }, { status: 'succeeded' }),
    ]);

    counter.stop();
    expect(counter.count()).toBe(dataSource.options.type === 'mysql' ? 1 : 2);
    expect(await statusOf('end')).toBe('succeeded');
    expect(await statusOf('run')).toBe('succeeded');
  });

  it('should store nothing twice and still run what follows when sent again after it was stored', async () => {
    const { manager } = dataSource;
    await manager.insert(StepRow, { id: 'run', status: 'running' });
    const statements = () => [
      insertNewStatement(manager, StepRow, [{ id: 'end', status: 'succeeded' }]),
      updateStatement(manager, StepRow, { id: 'run' }, { status: 'succeeded' }),
    ];
    await inOrder(manager, [statements()[0]]);

    await inOrder(manager, statements());

    expect(await manager.countBy(StepRow, { id: 'end' })).toBe(1);
    expect(await statusOf('run')).toBe('succeeded');
  });

  it('should stop at a statement that fails, the ones before it stored and the ones after it not run', async () => {
    const { manager } = dataSource;
    await manager.insert(StepRow, { id: 'run', status: 'running' });

    await expect(
      inOrder(manager, [
        insertNewStatement(manager, StepRow, [{ id: 'first', status: 'succeeded' }]),
        { sql: 'UPDATE no_such_table SET status = ?', parameters: ['x'] },
        updateStatement(manager, StepRow, { id: 'run' }, { status: 'succeeded' }),
      ]),
    ).rejects.toMatchObject({ message: expect.stringMatching(/no_such_table/) as unknown });

    expect(await statusOf('first')).toBe('succeeded');
    expect(await statusOf('run')).toBe('running');
  });
});
