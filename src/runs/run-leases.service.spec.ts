import type { TestingModule } from '@nestjs/testing';
import { newRun } from '../../test/factories/run.factory';
import { runsTestingModule } from '../../test/support/runs-testing-module';
import { throwawayMysqlDatabase } from '../../test/support/throwaway-mysql';
import { RunLeasesService } from './run-leases.service';
import { RunsService } from './runs.service';

const mysqlUrl = process.env.TEST_MYSQL_URL;
const LEASE_MS = 30_000;
const TEN_MINUTES = 600_000;
/** Only `Date` is faked: the database driver's timers and I/O run as usual. */
const NOT_THE_CLOCK: Extract<Parameters<typeof jest.useFakeTimers>[0], { doNotFake?: unknown }>['doNotFake'] = [
  'hrtime',
  'nextTick',
  'performance',
  'queueMicrotask',
  'requestAnimationFrame',
  'cancelAnimationFrame',
  'requestIdleCallback',
  'cancelIdleCallback',
  'setImmediate',
  'clearImmediate',
  'setInterval',
  'clearInterval',
  'setTimeout',
  'clearTimeout',
];

jest.setTimeout(60_000);

(mysqlUrl ? describe : describe.skip)(`${RunLeasesService.name} (TEST_MYSQL_URL)`, () => {
  let database: { url: string; drop: () => Promise<void> };
  const modules: TestingModule[] = [];

  /** A process of its own: its lease service measures its own clock offset. */
  const process = async () => {
    const moduleRef = await runsTestingModule([RunsService, RunLeasesService], { DATABASE_URL: database.url });
    modules.push(moduleRef);
    return { leases: moduleRef.get(RunLeasesService), runs: moduleRef.get(RunsService) };
  };

  beforeAll(async () => {
    database = await throwawayMysqlDatabase(mysqlUrl!, 'tf_leases');
  });

  afterEach(async () => {
    jest.useRealTimers();
    await Promise.all(modules.splice(0).map((moduleRef) => moduleRef.close()));
  });

  afterAll(() => database.drop());

  it('should keep a live lease taken by a worker whose clock runs ten minutes late from a worker with the right time', async () => {
    const late = await process();
    const onTime = await process();
    const run = await late.runs.create(newRun({ userId: 'owner' }));
    await late.runs.markRunning(run.id);
    jest.useFakeTimers({ now: Date.now() - TEN_MINUTES, doNotFake: NOT_THE_CLOCK });

    expect(await late.leases.acquire(run.id, 'worker-late', LEASE_MS)).toBe(true);
    jest.useRealTimers();

    expect(await onTime.leases.acquire(run.id, 'worker-on-time', LEASE_MS)).toBe(false);
    expect(await onTime.leases.unowned(10, 0)).not.toContain(run.id);
  });

  it('should still take over a lease that did run out', async () => {
    const { leases, runs } = await process();
    const run = await runs.create(newRun({ userId: 'owner' }));

    expect(await leases.acquire(run.id, 'worker-a', -1000)).toBe(true);

    expect(await leases.acquire(run.id, 'worker-b', LEASE_MS)).toBe(true);
  });

  it('should tell a run held by a worker from one let go of or whose lease ran out', async () => {
    const { leases, runs } = await process();
    const held = await runs.create(newRun({ userId: 'owner' }));
    const released = await runs.create(newRun({ userId: 'owner' }));
    const expired = await runs.create(newRun({ userId: 'owner' }));
    await leases.acquire(held.id, 'worker-a', LEASE_MS);
    await leases.acquire(released.id, 'worker-a', LEASE_MS);
    await leases.release(released.id, 'worker-a');
    await leases.acquire(expired.id, 'worker-a', -1000);

    expect(await leases.isHeld(held.id)).toBe(true);
    expect(await leases.isHeld(released.id)).toBe(false);
    expect(await leases.isHeld(expired.id)).toBe(false);
  });

  it('should let go in one statement of the runs an owner still holds, and of no other', async () => {
    const { leases, runs } = await process();
    const [first, second, takenOver] = await Promise.all([1, 2, 3].map(() => runs.create(newRun({ userId: 'owner' }))));
    for (const run of [first, second, takenOver]) await leases.acquire(run.id, 'worker-a', LEASE_MS);
    await leases.release(takenOver.id, 'worker-a');
    await leases.acquire(takenOver.id, 'worker-b', LEASE_MS);

    await leases.releaseAll([first.id, second.id, takenOver.id], 'worker-a');

    expect(await leases.isHeld(first.id)).toBe(false);
    expect(await leases.isHeld(second.id)).toBe(false);
    expect(await leases.isHeld(takenOver.id)).toBe(true);
  });
});
