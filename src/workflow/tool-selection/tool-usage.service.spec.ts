import type { DataSource } from 'typeorm';
import { countStatements } from '../../../test/support/statement-counter';
import { databasesAtHand } from '../../../test/support/throwaway-mysql';
import { ToolUsageTermEntity } from './tool-usage-term.entity';
import { TOOL_USAGE_TTL_MS, ToolUsageService } from './tool-usage.service';
import { entityDataSource } from '../../../test/support/entity-data-source';

const DATABASES = databasesAtHand('tf_tool_usage');

const TOOL_A = '0b7e1c2a-0000-4000-8000-00000000000a';
const TOOL_B = '0b7e1c2a-0000-4000-8000-00000000000b';
const DAY_MS = 86_400_000;

describe.each(DATABASES)(`${ToolUsageService.name} (%s)`, (_name, database) => {
  let dataSource: DataSource;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    const created = await database();
    drop = created.drop;
    dataSource = await entityDataSource([ToolUsageTermEntity], created.options);
  }, 60_000);

  beforeEach(() => dataSource.getRepository(ToolUsageTermEntity).clear());

  afterEach(() => jest.useRealTimers());

  afterAll(async () => {
    await dataSource.destroy();
    await drop();
  });

  const createSut = () => new ToolUsageService(dataSource.getRepository(ToolUsageTermEntity));
  const rows = () => dataSource.getRepository(ToolUsageTermEntity).find({ order: { toolKey: 'ASC', term: 'ASC' } });

  it('should give a fresh process the evidence another one learned', async () => {
    const learner = createSut();
    (await learner.of('user-1')).record('weather forecast for Berlin', TOOL_A);
    (await learner.of('user-1')).record('weather tomorrow', TOOL_A);
    await learner.flush();

    const sut = createSut();
    const scores = (await sut.of('user-1')).scores('weather in Paris');
    const otherOwner = (await sut.of('user-2')).scores('weather in Paris');

    expect([...scores.keys()]).toEqual([TOOL_A]);
    expect(scores.get(TOOL_A)).toBeCloseTo((await learner.of('user-1')).scores('weather in Paris').get(TOOL_A)!, 6);
    expect(otherOwner.size).toBe(0);
    expect((await rows()).find((row) => row.term === 'weather')?.ownerId).toBe('user-1');
  });

  it('should store the terms, never the text', async () => {
    const sut = createSut();

    (await sut.of('user-1')).record('Email ana@example.com the Q3 report', TOOL_A);
    await sut.flush();

    expect((await rows()).map((row) => row.term)).toEqual(['email', 'report']);
  });

  it('should write the calls learned together in one statement, adding to what is stored', async () => {
    const sut = createSut();
    const evidence = await sut.of('user-1');
    const counter = countStatements(dataSource);

    evidence.record('weather forecast', TOOL_A);
    evidence.record('weather alerts', TOOL_B);
    await sut.flush();
    const statements = counter.count('INSERT');
    evidence.record('weather forecast', TOOL_A);
    await sut.flush();
    counter.stop();

    expect(statements).toBe(1);
    const weather = (await rows()).filter((row) => row.term === 'weather');
    expect(weather.map((row) => row.toolKey)).toEqual([TOOL_A, TOOL_B]);
    expect(weather[0].weight / weather[1].weight).toBeCloseTo(2, 6);
  });

  it('should read an owner once per TTL, then see what other processes learned', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick'], now: Date.UTC(2026, 11, 5) });
    const sut = createSut();
    const other = createSut();
    await sut.of('user-1');
    (await other.of('user-1')).record('invoice customer', TOOL_B);
    await other.flush();
    const counter = countStatements(dataSource);

    const early = (await sut.of('user-1')).scores('invoice');
    jest.advanceTimersByTime(TOOL_USAGE_TTL_MS);
    const later = (await sut.of('user-1')).scores('invoice');
    counter.stop();

    expect(early.size).toBe(0);
    expect([...later.keys()]).toEqual([TOOL_B]);
    expect(counter.count('SELECT')).toBe(1);
  });

  it('should halve stored evidence every 30 days', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick'], now: Date.UTC(2026, 11, 5) });
    const learner = createSut();
    (await learner.of('user-1')).record('weather', TOOL_A);
    (await learner.of('user-1')).record('forecast', TOOL_A);
    await learner.flush();
    const before = (await createSut().of('user-1')).entries();

    jest.advanceTimersByTime(30 * DAY_MS);
    (await learner.of('user-1')).record('weather', TOOL_A);
    await learner.flush();
    const after = new Map((await createSut().of('user-1')).entries()).get(TOOL_A)!;

    expect(new Map(before).get(TOOL_A)?.get('weather')).toBeCloseTo(1, 6);
    expect(after.get('weather')).toBeCloseTo(1.5, 6);
    expect(after.get('forecast')).toBeCloseTo(0.5, 6);
  });

  it("should delete a deleted tool's evidence for every owner, and keep it across a new version", async () => {
    const sut = createSut();
    (await sut.of('user-1')).record('weather', TOOL_A);
    (await sut.of('user-2')).record('weather', TOOL_A);
    (await sut.of('user-1')).record('invoice', TOOL_B);
    await sut.flush();

    await sut.toolsChanged([{ id: TOOL_B, version: 4 }]);
    await sut.toolsChanged([{ id: TOOL_A, version: null }]);

    expect((await rows()).map((row) => [row.ownerId, row.toolKey])).toEqual([['user-1', TOOL_B]]);
    expect((await sut.of('user-1')).scores('weather').size).toBe(0);
  });

  it("should delete an owner's evidence and only theirs", async () => {
    const sut = createSut();
    (await sut.of('user-1')).record('weather', TOOL_A);
    (await sut.of('user-2')).record('weather', TOOL_A);
    await sut.flush();

    await sut.forgetOwner('user-1');

    expect((await rows()).map((row) => row.ownerId)).toEqual(['user-2']);
    expect((await sut.of('user-1')).scores('weather').size).toBe(0);
  });

  it('should delete the stored terms past the bound of 64 per tool when an owner is read', async () => {
    const sut = createSut();
    const evidence = await sut.of('user-1');
    const letter = (index: number) => String.fromCharCode(97 + index);
    const words = Array.from({ length: 80 }, (_, index) => `zq${letter(index % 26)}${letter(Math.floor(index / 26))}k`);
    evidence.record(words.slice(0, 32).join(' '), TOOL_A);
    evidence.record(words.slice(0, 32).join(' '), TOOL_A);
    evidence.record(words.slice(32, 64).join(' '), TOOL_A);
    evidence.record(words.slice(64).join(' '), TOOL_A);
    await sut.flush();
    expect(await dataSource.getRepository(ToolUsageTermEntity).count()).toBe(80);

    const fresh = createSut();
    const kept = new Map((await fresh.of('user-1')).entries()).get(TOOL_A)!;
    await fresh.flush();

    expect(kept.size).toBe(64);
    expect(await dataSource.getRepository(ToolUsageTermEntity).count()).toBe(64);
    for (const word of words.slice(0, 32)) expect(kept.get(word)).toBeCloseTo(2, 6);
  });
});
