import type { FieldProblem, QuotaLimitsDto } from '../api/types';
import { readNumberText } from './form-text';

/** The quotas a user can have, counted (a number each) or in money (an amount and a currency). */
export const COUNT_QUOTAS = ['concurrent_runs', 'runs_per_day', 'tokens_per_day', 'code_cpu_seconds_per_day'] as const;
export const COST_QUOTAS = ['cost_per_day', 'cost_per_month'] as const;
type CountQuota = (typeof COUNT_QUOTAS)[number];
type CostQuota = (typeof COST_QUOTAS)[number];

/** The form's fields, named as the API names them in its 400 (`cost_per_day.amount`). */
export type QuotaField = CountQuota | `${CostQuota}.amount` | `${CostQuota}.currency`;
export const QUOTA_FIELDS: QuotaField[] = [
  ...COUNT_QUOTAS,
  ...COST_QUOTAS.flatMap((quota) => [`${quota}.amount` as const, `${quota}.currency` as const]),
];

/** The text of each field, exactly as a person typed it. */
export type QuotaFormText = Record<QuotaField, string>;

export const QUOTA_LABELS: Record<QuotaField, string> = {
  concurrent_runs: 'Concurrent runs',
  runs_per_day: 'Runs per day',
  tokens_per_day: 'Tokens per day',
  code_cpu_seconds_per_day: 'Code-tool seconds per day',
  'cost_per_day.amount': 'Cost per day',
  'cost_per_day.currency': 'Currency (per day)',
  'cost_per_month.amount': 'Cost per month',
  'cost_per_month.currency': 'Currency (per month)',
};

const DEFAULT_CURRENCY = 'USD';

/** The form's text for stored quotas: empty for a quota not set (the currency field offers USD). */
export function quotaFormText(limits: QuotaLimitsDto): QuotaFormText {
  const text = {} as QuotaFormText;
  for (const quota of COUNT_QUOTAS) text[quota] = limits[quota] === undefined ? '' : String(limits[quota]);
  for (const quota of COST_QUOTAS) {
    text[`${quota}.amount`] = limits[quota] === undefined ? '' : String(limits[quota].amount);
    text[`${quota}.currency`] = limits[quota]?.currency ?? DEFAULT_CURRENCY;
  }
  return text;
}

export type QuotaReading = { ok: true; limits: QuotaLimitsDto } | { ok: false; problems: FieldProblem[] };

/**
 * What the form sends: each number exactly as typed (the API judges range and integrality and names the field),
 * an empty field leaves its quota unset; text that is not one number is refused here and nothing is sent.
 */
export function readQuotaForm(text: QuotaFormText): QuotaReading {
  const limits: QuotaLimitsDto = {};
  const problems: FieldProblem[] = [];
  const read = (field: QuotaField): number | undefined => {
    const reading = readNumberText(text[field]);
    if (reading.ok) return reading.value as number | undefined;
    problems.push({ field, message: reading.problem });
    return undefined;
  };
  for (const quota of COUNT_QUOTAS) {
    const value = read(quota);
    if (value !== undefined) limits[quota] = value;
  }
  for (const quota of COST_QUOTAS) {
    const amount = read(`${quota}.amount`);
    if (amount !== undefined) limits[quota] = { amount, currency: text[`${quota}.currency`].trim() };
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, limits };
}

/** The API's field problems at the form's fields; one the form has no field for (or a whole cost quota) kept apart. */
export function problemsAtFields(problems: FieldProblem[]): {
  byField: Partial<Record<QuotaField, string>>;
  others: FieldProblem[];
} {
  const byField: Partial<Record<QuotaField, string>> = {};
  const others: FieldProblem[] = [];
  for (const problem of problems) {
    const field = QUOTA_FIELDS.find((name) => problem.field === name) ?? costAmountOf(problem.field);
    if (field) byField[field] = byField[field] ? `${byField[field]}; ${problem.message}` : problem.message;
    else others.push(problem);
  }
  return { byField, others };
}

const costAmountOf = (field: string): QuotaField | undefined =>
  COST_QUOTAS.includes(field as CostQuota) ? (`${field}.amount` as QuotaField) : undefined;
