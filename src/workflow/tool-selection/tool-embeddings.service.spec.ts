import type { DataSource } from 'typeorm';
import { countStatements } from '../../../test/support/statement-counter';
import { databasesAtHand } from '../../../test/support/throwaway-mysql';
import { ToolEmbeddingEntity } from './tool-embedding.entity';
import { ToolEmbeddingsService } from './tool-embeddings.service';
import { entityDataSource } from '../../../test/support/entity-data-source';

/** The tools as ToolsService knows them: id → current version (absent: deleted). */
const NO_TOOLS = { currentVersions: () => Promise.resolve(new Map<string, number>()) };

describe(ToolEmbeddingsService.name, () => {
  let dataSource: DataSource;

  beforeEach(async () => {
    dataSource = await entityDataSource([ToolEmbeddingEntity]);
  });

  afterEach(() => dataSource.destroy());

  const createSut = () => new ToolEmbeddingsService(dataSource.getRepository(ToolEmbeddingEntity), NO_TOOLS);
  const vector = (seed: number) => Float32Array.from({ length: 8 }, (_, index) => Math.sin(seed + index) / 3);

  it('should read back exactly the vectors stored, per model, in a fresh process', async () => {
    await createSut().save(
      'openai/small',
      new Map([
        ['a@1:h', vector(1)],
        ['b@1:h', vector(2)],
      ]),
    );

    const found = await createSut().find('openai/small', ['a@1:h', 'b@1:h', 'c@1:h']);
    const otherModel = await createSut().find('local/nomic', ['a@1:h']);

    expect([...found.keys()].sort()).toEqual(['a@1:h', 'b@1:h']);
    expect(found.get('a@1:h')).toEqual(vector(1));
    expect(found.get('b@1:h')).toEqual(vector(2));
    expect(otherModel.size).toBe(0);
  });

  it('should keep the stored row when another process saved the same key meanwhile', async () => {
    await createSut().save('openai/small', new Map([['a@1:h', vector(1)]]));

    await createSut().save('openai/small', new Map([['a@1:h', vector(9)]]));

    expect((await createSut().find('openai/small', ['a@1:h'])).get('a@1:h')).toEqual(vector(1));
    expect(await dataSource.getRepository(ToolEmbeddingEntity).count()).toBe(1);
  });

  it('should read each vector from the database once per process', async () => {
    await createSut().save('openai/small', new Map([['a@1:h', vector(1)]]));
    const sut = createSut();
    const counter = countStatements(dataSource);

    await sut.find('openai/small', ['a@1:h']);
    await sut.find('openai/small', ['a@1:h']);
    await sut.save('openai/small', new Map([['b@1:h', vector(2)]]));
    counter.reset();
    const found = await sut.find('openai/small', ['a@1:h', 'b@1:h']);

    expect(counter.count('SELECT')).toBe(0);
    expect(found.get('b@1:h')).toEqual(vector(2));
    counter.stop();
  });

  it('should read and write more keys than one statement takes', async () => {
    const many = new Map(Array.from({ length: 1200 }, (_, index) => [`t${index}@1:h`, vector(index)] as const));
    await createSut().save('openai/small', many);

    const found = await createSut().find('openai/small', [...many.keys()]);

    expect(found.size).toBe(1200);
    expect(found.get('t1199@1:h')).toEqual(vector(1199));
  });
});

const ID_A = '0b7e1c2a-0000-4000-8000-00000000000a';
const ID_B = '0b7e1c2a-0000-4000-8000-00000000000b';
const ID_GONE = '0b7e1c2a-0000-4000-8000-0000000000ff';

const DATABASES = databasesAtHand('tf_embeddings');

describe.each(DATABASES)(
  `${ToolEmbeddingsService.name}: vectors of deleted tools and older versions (%s)`,
  (_name, database) => {
    let dataSource: DataSource;
    let drop: () => Promise<void>;
    let current: Map<string, number>;

    beforeAll(async () => {
      const created = await database();
      drop = created.drop;
      dataSource = await entityDataSource([ToolEmbeddingEntity], created.options);
    }, 60_000);

    beforeEach(async () => {
      await dataSource.getRepository(ToolEmbeddingEntity).clear();
      current = new Map([
        [ID_A, 3],
        [ID_B, 1],
      ]);
    });

    afterAll(async () => {
      await dataSource.destroy();
      await drop();
    });

    const vector = Float32Array.of(0.6, 0.8);
    const createSut = () =>
      new ToolEmbeddingsService(dataSource.getRepository(ToolEmbeddingEntity), {
        currentVersions: (ids) =>
          Promise.resolve(new Map(ids.flatMap((id) => (current.has(id) ? [[id, current.get(id)!] as const] : [])))),
      });
    const store = async (keys: string[], model = 'openai/small') =>
      createSut().save(model, new Map(keys.map((key) => [key, vector] as const)));
    const storedKeys = async () =>
      (await dataSource.getRepository(ToolEmbeddingEntity).find())
        .map((row) => `${row.modelKey} ${row.toolKey}`)
        .sort();

    it('should delete the vectors of the older versions of a tool for every model and keep the current one and other tools', async () => {
      await store([`${ID_A}@1:aa`, `${ID_A}@2:bb`, `${ID_A}@3:cc`, `${ID_B}@1:aa`, 'get_weather:aa']);
      await store([`${ID_A}@2:bb`], 'local/nomic');

      await createSut().toolsChanged([{ id: ID_A, version: 3 }]);

      expect(await storedKeys()).toEqual([
        `openai/small ${ID_A}@3:cc`,
        `openai/small ${ID_B}@1:aa`,
        'openai/small get_weather:aa',
      ]);
    });

    it('should delete every vector of a deleted tool, and not those of a tool whose id it begins', async () => {
      await store([`${ID_A}@1:aa`, `${ID_A}@2:bb`, `${ID_A}0@1:aa`]);

      await createSut().toolsChanged([{ id: ID_A, version: null }]);

      expect(await storedKeys()).toEqual([`openai/small ${ID_A}0@1:aa`]);
    });

    it('should sweep, page by page, the vectors of tools deleted or changed behind its back and keep the rest', async () => {
      await store([
        `${ID_A}@1:aa`,
        `${ID_A}@3:cc`,
        `${ID_B}@1:aa`,
        `${ID_B}@1:bb`,
        `${ID_GONE}@4:aa`,
        'get_weather:aa',
        'web@search:aa',
      ]);
      await store([`${ID_GONE}@4:aa`, `${ID_A}@3:cc`], 'local/nomic');

      const deleted = await createSut().sweep(2);

      expect(deleted).toBe(2);
      expect(await storedKeys()).toEqual([
        `local/nomic ${ID_A}@3:cc`,
        `openai/small ${ID_A}@3:cc`,
        `openai/small ${ID_B}@1:aa`,
        `openai/small ${ID_B}@1:bb`,
        'openai/small get_weather:aa',
        'openai/small web@search:aa',
      ]);
    });
  },
);
