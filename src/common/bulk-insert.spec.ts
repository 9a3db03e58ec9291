import { randomUUID } from 'node:crypto';
import { Column, DataSource, Entity, PrimaryColumn, type Repository } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { countStatements } from '../../test/support/statement-counter';
import { bulkInsert, upsertRow } from './bulk-insert';

/** The column kinds stored rows have: text, numbers, booleans, JSON, nulls and millisecond datetimes. */
@Entity('samples')
class SampleRow {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Column({ type: 'varchar', length: 16 })
  batch!: string;

  @Column({ type: 'int' })
  position!: number;

  @Column({ type: 'text' })
  label!: string;

  @Column({ type: 'boolean' })
  flagged!: boolean;

  @Column({ type: 'json', nullable: true })
  data!: Record<string, unknown> | null;

  @Column({ type: 'datetime', precision: 3 })
  at!: Date;
}

// One fresh in-memory database per test, for both writers.
describe('bulk writes', () => {
  let dataSource: DataSource;
  let samples: Repository<SampleRow>;

  beforeEach(async () => {
    dataSource = await new DataSource({
      type: 'better-sqlite3',
      database: ':memory:',
      entities: [SampleRow],
      synchronize: true,
    }).initialize();
    samples = dataSource.getRepository(SampleRow);
  });

  afterEach(() => dataSource.destroy());

  describe(bulkInsert.name, () => {
    const row = (batch: string, position: number): SampleRow => ({
      id: randomUUID(),
      batch,
      position,
      label: `it's "quoted" ✓ ${position}`,
      flagged: position % 2 === 0,
      data: position % 3 === 0 ? null : { node_id: 'llm-1', nested: { list: [1, null, true] } },
      at: new Date(Date.UTC(2026, 0, 2, 3, 4, 5, position % 1000)),
    });

    it('should store rows that read back exactly like rows the repository inserted', async () => {
      const viaRepository = [1, 2, 3].map((position) => row('a', position));
      const viaBulk = [1, 2, 3].map((position) => row('b', position));
      await samples.insert(viaRepository as QueryDeepPartialEntity<SampleRow>[]);

      await bulkInsert(samples.manager, SampleRow, viaBulk);

      const read = async (batch: string) =>
        (await samples.find({ where: { batch }, order: { position: 'ASC' } })).map(
          ({ id: _id, batch: _batch, ...rest }) => rest,
        );
      expect(await read('b')).toEqual(await read('a'));
      expect(await read('b')).toEqual(viaBulk.map(({ id: _id, batch: _batch, ...rest }) => rest));
    });

    it('should write many rows in a few statements', async () => {
      const rows = Array.from({ length: 1200 }, (_, index) => row('c', index + 1));
      const counter = countStatements(dataSource);

      await bulkInsert(samples.manager, SampleRow, rows);

      counter.stop();
      expect(counter.count('INSERT')).toBe(3);
      await expect(samples.countBy({ batch: 'c' })).resolves.toBe(1200);
    });

    it('should write nothing for no rows', async () => {
      const counter = countStatements(dataSource);

      await bulkInsert(samples.manager, SampleRow, []);

      counter.stop();
      expect(counter.statements).toEqual([]);
    });
  });

  describe(upsertRow.name, () => {
    const row = (id: string, position: number): SampleRow => ({
      id,
      batch: 'a',
      position,
      label: `it's "quoted" ✓ ${position}`,
      flagged: position % 2 === 0,
      data: { messages: [{ role: 'user', content: `step ${position}` }], nested: { list: [1, null, true] } },
      at: new Date(Date.UTC(2026, 0, 2, 3, 4, 5, position)),
    });

    it('should insert a new row, then overwrite every other column of it, in one statement each', async () => {
      const counter = countStatements(dataSource);

      await upsertRow(samples.manager, SampleRow, row('a', 1), 'id');
      await upsertRow(samples.manager, SampleRow, row('a', 2), 'id');

      counter.stop();
      expect(counter.statements).toHaveLength(2);
      await expect(samples.find()).resolves.toEqual([row('a', 2)]);
    });

    it('should store rows that read back exactly like rows the repository upserted', async () => {
      await samples.upsert(row('by-repository', 7) as QueryDeepPartialEntity<SampleRow>, ['id']);
      await upsertRow(samples.manager, SampleRow, row('by-upsert-row', 7), 'id');

      const [viaRepository, viaUpsertRow] = await Promise.all([
        samples.findOneByOrFail({ id: 'by-repository' }),
        samples.findOneByOrFail({ id: 'by-upsert-row' }),
      ]);
      expect({ ...viaUpsertRow, id: 'by-repository' }).toEqual(viaRepository);
    });

    it('should leave rows with another key alone', async () => {
      await upsertRow(samples.manager, SampleRow, row('a', 1), 'id');
      await upsertRow(samples.manager, SampleRow, row('b', 2), 'id');

      await expect(samples.find({ order: { position: 'ASC' } })).resolves.toEqual([row('a', 1), row('b', 2)]);
    });
  });
});
