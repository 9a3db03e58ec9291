import { problemsAtFields, quotaFormText, readQuotaForm, type QuotaFormText } from '../../console/src/lib/quota-form';

const form = (fields: Partial<QuotaFormText>): QuotaFormText => ({ ...quotaFormText({}), ...fields });

describe(readQuotaForm.name, () => {
  it('should send each number exactly as typed, even one the API will refuse', () => {
    expect(readQuotaForm(form({ runs_per_day: '-1', concurrent_runs: '2.5', tokens_per_day: '1000' }))).toEqual({
      ok: true,
      limits: { runs_per_day: -1, concurrent_runs: 2.5, tokens_per_day: 1000 },
    });
  });

  it('should leave a quota with an empty field unset', () => {
    expect(readQuotaForm(form({}))).toEqual({ ok: true, limits: {} });
  });

  it('should send a cost quota with the currency as typed', () => {
    const reading = readQuotaForm(form({ 'cost_per_day.amount': '5', 'cost_per_day.currency': 'dollars' }));
    expect(reading).toEqual({ ok: true, limits: { cost_per_day: { amount: 5, currency: 'dollars' } } });
  });

  it('should send nothing when a field is not one number, naming that field', () => {
    expect(readQuotaForm(form({ runs_per_day: '12a', 'cost_per_month.amount': '1,5' }))).toEqual({
      ok: false,
      problems: [
        { field: 'runs_per_day', message: 'is not a number' },
        { field: 'cost_per_month.amount', message: 'is not a number' },
      ],
    });
  });
});

describe(quotaFormText.name, () => {
  it('should show stored quotas and offer USD for a cost not set', () => {
    const text = quotaFormText({ runs_per_day: 500, cost_per_month: { amount: 20, currency: 'EUR' } });
    expect(text).toMatchObject({
      runs_per_day: '500',
      concurrent_runs: '',
      'cost_per_month.amount': '20',
      'cost_per_month.currency': 'EUR',
      'cost_per_day.amount': '',
      'cost_per_day.currency': 'USD',
    });
  });
});

describe(problemsAtFields.name, () => {
  it('should place the API’s problems at the fields they name, a whole cost quota at its amount', () => {
    expect(
      problemsAtFields([
        { field: 'runs_per_day', message: 'must not be less than 0' },
        { field: 'cost_per_day.currency', message: 'currency must be an ISO 4217 code such as USD' },
        { field: 'cost_per_month', message: 'nested property cost_per_month must be an object' },
        { field: 'runs_per_week', message: 'property runs_per_week should not exist' },
      ]),
    ).toEqual({
      byField: {
        runs_per_day: 'must not be less than 0',
        'cost_per_day.currency': 'currency must be an ISO 4217 code such as USD',
        'cost_per_month.amount': 'nested property cost_per_month must be an object',
      },
      others: [{ field: 'runs_per_week', message: 'property runs_per_week should not exist' }],
    });
  });
});
