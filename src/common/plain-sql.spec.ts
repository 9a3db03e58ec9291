import { randomUUID } from 'node:crypto';
import { Column, type DataSource, Entity, PrimaryColumn, type Repository } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { countStatements } from '../../test/support/statement-counter';
import { bulkInsert, incrementColumn, insertRowIf, selectRows, updateRows, upsertRow } from './plain-sql';
import { entityDataSource } from '../../test/support/entity-data-source';

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
    dataSource = await entityDataSource([SampleRow]);
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

  describe(insertRowIf.name, () => {
    const sample = (batch: string, position: number): SampleRow => ({
      id: randomUUID(),
      batch,
      position,
      label: 'x',
      flagged: true,
      data: { position },
      at: new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 6)),
    });
    const fewerThan = (batch: string, limit: number) => ({
      sql: '(SELECT COUNT(*) FROM samples WHERE batch = ?) < ?',
      parameters: [batch, limit],
    });

    it('should store the row while the condition over the other rows holds, and only then', async () => {
      const rows = [1, 2, 3].map((position) => sample('q', position));
      const stored = [];
      for (const row of rows) stored.push(await insertRowIf(samples.manager, SampleRow, row, 'id', fewerThan('q', 2)));

      expect(stored).toEqual([true, true, false]);
      const read = await samples.find({ where: { batch: 'q' }, order: { position: 'ASC' } });
      expect(read).toEqual(rows.slice(0, 2));
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

  describe(updateRows.name, () => {
    const row = (id: string, position: number): SampleRow => ({
      id,
      batch: 'a',
      position,
      label: `row ${position}`,
      flagged: false,
      data: null,
      at: new Date(Date.UTC(2026, 0, 2, 3, 4, 5, position)),
    });

    it('should change the rows that match like the repository does, in one statement', async () => {
      await bulkInsert(samples.manager, SampleRow, [
        row('by-repository', 1),
        row('by-update-rows', 1),
        row('other', 1),
      ]);
      const changes = {
        label: `it's "quoted" ✓`,
        flagged: true,
        data: { list: [1, null] },
        at: new Date(Date.UTC(2027, 1, 1, 0, 0, 0, 7)),
      };
      await samples.update({ id: 'by-repository' }, changes);
      const counter = countStatements(dataSource);

      await updateRows(samples.manager, SampleRow, { id: 'by-update-rows', batch: 'a' }, changes);

      counter.stop();
      expect(counter.statements).toHaveLength(1);
      const [viaRepository, viaUpdateRows, other] = await Promise.all(
        ['by-repository', 'by-update-rows', 'other'].map((id) => samples.findOneByOrFail({ id })),
      );
      expect({ ...viaUpdateRows, id: 'by-repository' }).toEqual(viaRepository);
      expect(other).toEqual(row('other', 1));
    });

    it('should refuse an update that sets nothing or matches every row', async () => {
      await expect(updateRows(samples.manager, SampleRow, { id: 'x' }, {})).rejects.toThrow('no column');
      await expect(updateRows(samples.manager, SampleRow, {}, { label: 'all' })).rejects.toThrow('no column');
    });
  });

  describe(incrementColumn.name, () => {
    it('should add to the column of the matching rows only', async () => {
      const at = new Date(Date.UTC(2026, 0, 1));
      const base = { batch: 'a', label: 'x', flagged: false, data: null, at };
      await bulkInsert(samples.manager, SampleRow, [
        { id: 'a', position: 1, ...base },
        { id: 'b', position: 1, ...base },
      ]);

      await incrementColumn(samples.manager, SampleRow, { id: 'a' }, 'position', 3);
      await incrementColumn(samples.manager, SampleRow, { id: 'a' }, 'position', 2);

      await expect(samples.find({ order: { id: 'ASC' } })).resolves.toEqual([
        { id: 'a', position: 6, ...base },
        { id: 'b', position: 1, ...base },
      ]);
    });
  });

  describe(selectRows.name, () => {
    const row = (id: string, batch: string, position: number): SampleRow => ({
      id,
      batch,
      position,
      label: `it's "quoted" ✓ ${position}`,
      flagged: position % 2 === 0,
      data: position % 3 === 0 ? null : { node_id: 'llm-1', nested: { list: [1, null, true] } },
      at: new Date(Date.UTC(2026, 0, 2, 3, 4, 5, position)),
    });

    beforeEach(() =>
      bulkInsert(samples.manager, SampleRow, [row('a', 'x', 1), row('b', 'x', 2), row('c', 'y', 3), row('d', 'z', 4)]),
    );

    it('should read the rows that match as the repository finds them, in one statement', async () => {
      const counter = countStatements(dataSource);

      const found = await selectRows(samples.manager, SampleRow, { batch: 'x', position: 2 });

      counter.stop();
      expect(counter.statements).toHaveLength(1);
      expect(found).toEqual(await samples.findBy({ batch: 'x', position: 2 }));
      expect(found).toEqual([row('b', 'x', 2)]);
      expect(found[0]).toBeInstanceOf(SampleRow);
    });

    it('should match any element of an array, and nothing for an empty one', async () => {
      const found = await selectRows(samples.manager, SampleRow, { batch: ['x', 'y'] });

      expect(found.sort((a, b) => a.position - b.position)).toEqual([
        row('a', 'x', 1),
        row('b', 'x', 2),
        row('c', 'y', 3),
      ]);
      await expect(selectRows(samples.manager, SampleRow, { batch: [] })).resolves.toEqual([]);
      await expect(selectRows(samples.manager, SampleRow, {})).rejects.toThrow('no column');
    });
  });
});
