import { DataSource } from 'typeorm';
import { countStatements } from '../../../test/support/statement-counter';
import { ToolEmbeddingEntity } from './tool-embedding.entity';
import { ToolEmbeddingsService } from './tool-embeddings.service';

describe(ToolEmbeddingsService.name, () => {
  let dataSource: DataSource;

  beforeEach(async () => {
    dataSource = await new DataSource({
      type: 'better-sqlite3',
      database: ':memory:',
      entities: [ToolEmbeddingEntity],
      synchronize: true,
    }).initialize();
  });

  afterEach(() => dataSource.destroy());

  const createSut = () => new ToolEmbeddingsService(dataSource.getRepository(ToolEmbeddingEntity));
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
