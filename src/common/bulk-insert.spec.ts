import { randomUUID } from 'node:crypto';
import { Column, DataSource, Entity, PrimaryColumn, type Repository } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { countStatements } from '../../test/support/statement-counter';
import { bulkInsert } from './bulk-insert';

/** The column kinds stored rows have: text, numbers, JSON and millisecond datetimes. */
@Entity('events')
class EventRow {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Column({ name: 'run_id', type: 'varchar', length: 36 })
  runId!: string;

  @Column({ type: 'int' })
  seq!: number;

  @Column({ type: 'varchar', length: 32 })
  type!: string;

  @Column({ type: 'json' })
  data!: Record<string, unknown>;

  @Column({ name: 'created_at', type: 'datetime', precision: 3 })
  createdAt!: Date;
}

describe(bulkInsert.name, () => {
  let dataSource: DataSource;
  let events: Repository<EventRow>;

  beforeEach(async () => {
    dataSource = await new DataSource({
      type: 'better-sqlite3',
      database: ':memory:',
      entities: [EventRow],
      synchronize: true,
    }).initialize();
    events = dataSource.getRepository(EventRow);
  });

  afterEach(() => dataSource.destroy());

  const row = (runId: string, seq: number): EventRow => ({
    id: randomUUID(),
    runId,
    seq,
    type: 'tool.result',
    data: { node_id: 'llm-1', response: `it's "quoted" ✓ ${seq}`, nested: { list: [1, null, true] } },
    createdAt: new Date(Date.UTC(2026, 0, 2, 3, 4, 5, seq % 1000)),
  });

  it('should store rows that read back exactly like rows the repository inserted', async () => {
    const viaRepository = [row('run-a', 1), row('run-a', 2)];
    const viaBulk = [row('run-b', 1), row('run-b', 2)];
    await events.insert(viaRepository as QueryDeepPartialEntity<EventRow>[]);

    await bulkInsert(events.manager, EventRow, viaBulk);

    const read = async (runId: string) =>
      (await events.find({ where: { runId }, order: { seq: 'ASC' } })).map(
        ({ id: _id, runId: _runId, ...rest }) => rest,
      );
    expect(await read('run-b')).toEqual(await read('run-a'));
    expect((await read('run-b'))[1]).toEqual({
      seq: 2,
      type: 'tool.result',
      data: viaBulk[1].data,
      createdAt: viaBulk[1].createdAt,
    });
  });

  it('should write many rows in a few statements', async () => {
    const rows = Array.from({ length: 1200 }, (_, index) => row('run-c', index + 1));
    const counter = countStatements(dataSource);

    await bulkInsert(events.manager, EventRow, rows);

    counter.stop();
    expect(counter.count('INSERT')).toBe(3);
    await expect(events.countBy({ runId: 'run-c' })).resolves.toBe(1200);
  });

  it('should write nothing for no rows', async () => {
    const counter = countStatements(dataSource);

    await bulkInsert(events.manager, EventRow, []);

    counter.stop();
    expect(counter.statements).toEqual([]);
  });
});
