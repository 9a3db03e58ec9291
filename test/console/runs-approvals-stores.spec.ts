import { createPinia, setActivePinia } from 'pinia';
import { useApprovalsStore } from '../../console/src/stores/approvals';
import { useRunsStore } from '../../console/src/stores/runs';

const answer = (status: number, body: unknown) => {
  global.fetch = () => Promise.resolve(new Response(JSON.stringify(body), { status }));
};

describe('useRunsStore', () => {
  const realFetch = global.fetch;
  beforeEach(() => setActivePinia(createPinia()));
  afterEach(() => (global.fetch = realFetch));

  it('should say a refused start with its status', async () => {
    answer(429, { detail: 'Quota runs_per_day of user "admin" is used up (2 of 2 per day)' });
    expect(await useRunsStore().start('w1', {})).toEqual({
      ok: false,
      error: '429 Quota runs_per_day of user "admin" is used up (2 of 2 per day)',
    });
  });

  it('should answer the run that started', async () => {
    answer(202, { id: 'r1', status: 'queued' });
    expect(await useRunsStore().startInline({ nodes: [] }, { question: 'Hi?' })).toEqual({
      ok: true,
      run: { id: 'r1', status: 'queued' },
    });
  });
});

describe('useApprovalsStore', () => {
  const realFetch = global.fetch;
  beforeEach(() => setActivePinia(createPinia()));
  afterEach(() => (global.fetch = realFetch));

  it('should close an approval once decided, and keep one the API refused open', async () => {
    const sut = useApprovalsStore();
    answer(422, { detail: 'Invalid arguments', errors: [{ field: 'arguments.amount', message: 'must be <= 100' }] });
    await expect(sut.decide('r1', 'a1', { decision: 'approve', arguments: { amount: 500 } })).rejects.toThrow(
      'Invalid arguments',
    );
    expect(sut.isOpen('a1')).toBe(true);

    answer(200, { id: 'r1', status: 'running' });
    await sut.decide('r1', 'a1', { decision: 'approve', arguments: { amount: 80 } });
    expect(sut.isOpen('a1')).toBe(false);
  });
});
