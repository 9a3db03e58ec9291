import type { TestingModule } from '@nestjs/testing';
import { adminPrincipal, newRun, userPrincipal } from '../../test/factories/run.factory';
import { runsTestingModule } from '../../test/support/runs-testing-module';
import { type ApprovalRequest, ApprovalsService } from './approvals.service';
import { RunEventsService } from './run-events.service';
import { RUN_SUPERVISOR } from './run-supervisor';
import { RunsService } from './runs.service';
import { RunQueriesService } from './run-queries.service';

const owner = userPrincipal('owner');

describe(ApprovalsService.name, () => {
  let moduleRef: TestingModule;
  let sut: ApprovalsService;
  let runs: RunsService;
  const resume = jest.fn();

  const request = (runId: string, callId: string): ApprovalRequest => ({
    runId,
    nodeId: 'llm-1',
    callId,
    toolName: 'wipe',
    arguments: { target: 'db' },
    parameters: {
      type: 'object',
      properties: { target: { type: 'string' }, count: { type: 'integer', minimum: 1 } },
      required: ['target'],
    },
    userId: 'owner',
  });

  /** A run of `owner` that executed, asked about `callIds` and stopped to wait. */
  const waitingRun = async (...callIds: string[]) => {
    const run = await runs.create(newRun({ userId: 'owner' }));
    await runs.markRunning(run.id);
    const approvals = [];
    for (const callId of callIds) approvals.push(await sut.request(request(run.id, callId)));
    await sut.wait(run.id);
    return { runId: run.id, approvals };
  };

  beforeEach(async () => {
    resume.mockReset();
    moduleRef = await runsTestingModule([
      RunsService,
      RunQueriesService,
      RunEventsService,
      ApprovalsService,
      { provide: RUN_SUPERVISOR, useValue: { resume } },
    ]);
    sut = moduleRef.get(ApprovalsService);
    runs = moduleRef.get(RunsService);
  });

  afterEach(() => moduleRef.close());

  it('should store a request once and give its state back when the resumed run asks again', async () => {
    const run = await runs.create(newRun({ userId: 'owner' }));

    const first = await sut.request(request(run.id, 'call_1'));
    const again = await sut.request(request(run.id, 'call_1'));

    expect(first).toMatchObject({ created: true, status: 'pending' });
    expect(again).toMatchObject({ id: first.id, created: false, status: 'pending' });
  });

  it('should turn a running run with a pending call into waiting, and one whose calls were all decided back to running', async () => {
    const { runId } = await waitingRun('call_1');
    expect(await runs.statusOf(runId)).toBe('waiting');

    const decidedMeanwhile = await runs.create(newRun({ userId: 'owner' }));
    await runs.markRunning(decidedMeanwhile.id);
    const state = await sut.request(request(decidedMeanwhile.id, 'call_1'));
    await sut.decide(decidedMeanwhile.id, state.id, { decision: 'approve' }, owner);
    expect(resume).not.toHaveBeenCalled();
    await sut.wait(decidedMeanwhile.id);

    expect(await runs.statusOf(decidedMeanwhile.id)).toBe('running');
  });

  it('should resume the run only once its last pending call is decided', async () => {
    const {
      runId,
      approvals: [first, second],
    } = await waitingRun('call_1', 'call_2');

    const afterFirst = await sut.decide(runId, first.id, { decision: 'approve' }, owner);
    expect(afterFirst).toMatchObject({ status: 'waiting', pending_approvals: [{ id: second.id, call_id: 'call_2' }] });
    expect(resume).not.toHaveBeenCalled();

    const afterSecond = await sut.decide(runId, second.id, { decision: 'reject', comment: 'No.' }, owner);

    expect(afterSecond).toMatchObject({ status: 'running', pending_approvals: [] });
    expect(resume).toHaveBeenCalledWith(runId);
    expect(await sut.request(request(runId, 'call_2'))).toMatchObject({ status: 'rejected', comment: 'No.' });
  });

  it('should refuse a second decision with 409, and unknown ids or other users with 404', async () => {
    const {
      runId,
      approvals: [approval],
    } = await waitingRun('call_1');

    await expect(
      sut.decide(runId, approval.id, { decision: 'approve' }, userPrincipal('stranger')),
    ).rejects.toMatchObject({ code: 'not_found' });
    await expect(sut.decide(runId, crypto.randomUUID(), { decision: 'approve' }, owner)).rejects.toMatchObject({
      code: 'not_found',
    });
    await sut.decide(runId, approval.id, { decision: 'approve' }, adminPrincipal());

    await expect(sut.decide(runId, approval.id, { decision: 'reject' }, owner)).rejects.toMatchObject({
      code: 'conflict',
    });
  });

  it('should refuse edited arguments that do not match the schema with each field, and keep edits that do', async () => {
    const {
      runId,
      approvals: [approval],
    } = await waitingRun('call_1');

    await expect(
      sut.decide(runId, approval.id, { decision: 'approve', arguments: { count: 0 } }, owner),
    ).rejects.toMatchObject({
      code: 'unprocessable',
      problems: expect.arrayContaining([
        expect.objectContaining({ field: 'arguments.target' }),
        expect.objectContaining({ field: 'arguments.count' }),
      ]) as unknown,
    });
    await expect(
      sut.decide(runId, approval.id, { decision: 'reject', arguments: { target: 'x' } }, owner),
    ).rejects.toMatchObject({ code: 'validation_failed', problems: [expect.objectContaining({ field: 'arguments' })] });
    await sut.decide(runId, approval.id, { decision: 'approve', arguments: { target: 'copy' } }, owner);

    expect(await sut.request(request(runId, 'call_1'))).toMatchObject({
      status: 'approved',
      decidedArguments: { target: 'copy' },
    });
  });

  it('should keep the model’s credential when edited arguments send it back masked, and take a new one as sent', async () => {
    const {
      runId,
      approvals: [first, second],
    } = await waitingRun('call_1', 'call_2');
    const withKey = { ...request(runId, 'call_1'), arguments: { target: 'db', api_key: 'sk-model-secret' } };
    const third = await sut.request({ ...withKey, callId: 'call_3' });

    await sut.decide(
      runId,
      third.id,
      { decision: 'approve', arguments: { target: 'copy', api_key: '********' } },
      owner,
    );
    await sut.decide(runId, first.id, { decision: 'approve', arguments: { target: 'copy', api_key: 'sk-new' } }, owner);
    await sut.decide(
      runId,
      second.id,
      { decision: 'approve', arguments: { target: 'copy', api_key: '********' } },
      owner,
    );

    expect((await sut.request({ ...withKey, callId: 'call_3' })).decidedArguments).toEqual({
      target: 'copy',
      api_key: 'sk-model-secret',
    });
    expect((await sut.request(request(runId, 'call_1'))).decidedArguments).toEqual({
      target: 'copy',
      api_key: 'sk-new',
    });
    expect((await sut.request(request(runId, 'call_2'))).decidedArguments).toEqual({
      target: 'copy',
      api_key: '********',
    });
  });

  it('should list pending approvals of the caller’s runs that have not ended, and all of them for an admin', async () => {
    const { runId } = await waitingRun('call_1');
    const ended = await waitingRun('call_2');
    await runs.cancelUnfinished(ended.runId, 'cancelled by the client');

    const mine = await sut.list({ status: 'pending', page: 1, page_size: 20 }, owner);
    const theirs = await sut.list({ status: 'pending', page: 1, page_size: 20 }, userPrincipal('stranger'));
    const all = await sut.list({ page: 1, page_size: 20 }, adminPrincipal());

    expect(mine.items.map((item) => [item.run_id, item.call_id])).toEqual([[runId, 'call_1']]);
    expect(theirs.total).toBe(0);
    expect(all.total).toBe(2);
  });

  it('should list the approval of a run cancelled while it waited as cancelled, not pending', async () => {
    const going = await waitingRun('call_1');
    const cancelled = await waitingRun('call_2');
    await runs.cancelUnfinished(cancelled.runId, 'cancelled by the client');

    const all = await sut.list({ page: 1, page_size: 20 }, owner);
    const onlyCancelled = await sut.list({ status: 'cancelled', page: 1, page_size: 20 }, owner);

    expect(all.items.map((item) => [item.run_id, item.status]).sort()).toEqual(
      [
        [going.runId, 'pending'],
        [cancelled.runId, 'cancelled'],
      ].sort(),
    );
    expect(onlyCancelled.items.map((item) => [item.run_id, item.status])).toEqual([[cancelled.runId, 'cancelled']]);
  });
});
