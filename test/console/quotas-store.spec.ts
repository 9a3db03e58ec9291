import { createPinia, setActivePinia } from 'pinia';
import { useQuotasStore } from '../../console/src/stores/quotas';

interface Sent {
  method: string;
  url: string;
  body: unknown;
}

/** The API as a list of answers, one per call, recording what the store sent. */
function fakeApi(answers: Array<{ status: number; body: unknown }>): Sent[] {
  const sent: Sent[] = [];
  global.fetch = ((url: string, init: { method: string; body?: string }) => {
    sent.push({ method: init.method, url, body: init.body === undefined ? undefined : JSON.parse(init.body) });
    const answer = answers.shift() ?? { status: 500, body: { detail: 'no answer scripted' } };
    return Promise.resolve(
      new Response(JSON.stringify(answer.body), { status: answer.status, statusText: String(answer.status) }),
    );
  }) as typeof fetch;
  return sent;
}

const quota = (limits: Record<string, unknown> = {}) => ({ user_id: 'carol', limits, states: [], updated_at: null });

describe('useQuotasStore', () => {
  const realFetch = global.fetch;
  let sut: ReturnType<typeof useQuotasStore>;

  beforeEach(() => {
    setActivePinia(createPinia());
    sut = useQuotasStore();
  });
  afterEach(() => (global.fetch = realFetch));

  it('should send the typed value and show the API’s 400 at the field it names, keeping the text', async () => {
    const sent = fakeApi([
      { status: 200, body: quota({ runs_per_day: 5 }) },
      {
        status: 400,
        body: { detail: 'Invalid request', errors: [{ field: 'runs_per_day', message: 'must not be less than 0' }] },
      },
    ]);
    await sut.edit('carol');
    sut.setField('runs_per_day', '-1');

    expect(await sut.save()).toBe(false);
    expect(sent[1]).toEqual({ method: 'PUT', url: '/api/v1/quotas/carol', body: { runs_per_day: -1 } });
    expect(sut.placed.byField).toEqual({ runs_per_day: 'must not be less than 0' });
    expect(sut.text.runs_per_day).toBe('-1');

    sut.setField('runs_per_day', '2');
    expect(sut.placed.byField).toEqual({});
  });

  it('should send nothing while a field is not one number', async () => {
    const sent = fakeApi([{ status: 200, body: quota() }]);
    await sut.edit('carol');
    sut.setField('tokens_per_day', '10k');

    expect(await sut.save()).toBe(false);
    expect(sent).toHaveLength(1);
    expect(sut.placed.byField).toEqual({ tokens_per_day: 'is not a number' });
  });
});
