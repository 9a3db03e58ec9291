import { LeaseReleases, RELEASE_BATCH_MS } from './lease-releases';

describe(LeaseReleases.name, () => {
  let released: string[][];
  let failures: unknown[];
  let sut: LeaseReleases;

  beforeEach(() => {
    jest.useFakeTimers();
    released = [];
    failures = [];
    sut = new LeaseReleases(
      (runIds) => {
        released.push(runIds);
        return Promise.resolve();
      },
      (error) => failures.push(error),
    );
  });

  afterEach(() => jest.useRealTimers());

  it('should let go of the leases of runs that ended within one batch period in one statement', () => {
    sut.add('run-1');
    jest.advanceTimersByTime(RELEASE_BATCH_MS - 1);
    sut.add('run-2');
    expect(released).toEqual([]);

    jest.advanceTimersByTime(1);

    expect(released).toEqual([['run-1', 'run-2']]);
    sut.add('run-3');
    jest.advanceTimersByTime(RELEASE_BATCH_MS);
    expect(released).toEqual([['run-1', 'run-2'], ['run-3']]);
  });

  it('should let go of the pending leases at once when flushed, and of none twice', async () => {
    sut.add('run-1');

    await sut.flush();
    jest.advanceTimersByTime(RELEASE_BATCH_MS);

    expect(released).toEqual([['run-1']]);
  });

  it('should report a release that failed', async () => {
    const failure = new Error('database away');
    sut = new LeaseReleases(
      () => Promise.reject(failure),
      (error) => failures.push(error),
    );
    sut.add('run-1');

    await sut.flush();

    expect(failures).toEqual([failure]);
  });
});
