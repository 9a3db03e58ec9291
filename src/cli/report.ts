/** An amount of money as the service reports it, in the currency's main unit. */
interface Cost {
  amount: number;
  currency: string;
}

/** What the CLI reads of a test run (POST /workflows/{id}/test-runs, then GET …/test-runs/{id} until it ended). */
export interface TestRunReport {
  id: string;
  status: string;
  /** Why the test run ended before its cases did (its process stopped, …); absent from older services. */
  error?: string | null;
  summary: {
    cases: number;
    passed: number;
    failed: number;
    total_tokens: number;
    duration_ms: number;
    /** Null: a model without a known price; absent: a service older than costs. */
    cost?: Cost | null;
  };
  results: Array<{
    name: string;
    passed: boolean;
    run_id: string | null;
    run_status: string | null;
    replayed: boolean;
    error: string | null;
    divergence: { description: string } | null;
    assertions: Array<{ type: string; passed: boolean; actual: unknown; message: string }>;
    total_tokens: number;
    duration_ms: number | null;
    cost?: Cost | null;
  }>;
}

type CaseReport = TestRunReport['results'][number];

/** Why a case failed, in one line: its error, its divergence, else its failed assertions with their actual values. */
export const failureOf = (result: CaseReport): string => {
  if (result.error !== null) return result.error;
  if (result.divergence !== null) return `diverged: ${result.divergence.description}`;
  return result.assertions
    .filter((assertion) => !assertion.passed)
    .map((assertion) => `${assertion.type}: ${assertion.message} (actual ${JSON.stringify(assertion.actual)})`)
    .join('; ');
};

/**
 * `0.0022 USD` (six significant digits, as the console shows it); `unknown` for a model without a known price,
 * `-` when the service did not say.
 */
export const costText = (cost: Cost | null | undefined): string => {
  if (cost === undefined) return '-';
  if (cost === null) return 'unknown';
  return `${Number(cost.amount.toPrecision(6))} ${cost.currency}`;
};

/** Run statuses of a case that was judged on a finished run: any other one was cancelled or did not end. */
const ENDED_RUN_STATUSES: ReadonlySet<string> = new Set(['succeeded', 'failed']);

/** A failed case whose run was cancelled or never ended: not a verdict on the workflow, an error of the test run. */
const isInterrupted = (result: CaseReport): boolean =>
  !result.passed && result.run_status !== null && !ENDED_RUN_STATUSES.has(result.run_status);

const pad = (text: string, width: number) => text + ' '.repeat(Math.max(0, width - text.length));

/**
 * The cases an interrupted test run never ended, by name (from `caseNames`, the cases sent; `not run N` when
 * unknown), and why.
 */
function casesNotRun(report: TestRunReport, caseNames: readonly string[]): { names: string[]; why: string } {
  const ended = new Set(report.results.map((result) => result.name));
  const named = caseNames.filter((name) => !ended.has(name));
  const missing = Math.max(0, report.summary.cases - report.results.length);
  return {
    names: Array.from({ length: missing }, (_, index) => named[index] ?? `not run ${index + 1}`),
    why: `not run: ${report.error ? `the test run ended early: ${report.error}` : 'the test run ended before it'}`,
  };
}

/**
 * The test run as a text table, one case a row (ERROR for a case whose run was cancelled or never ended, NOT RUN for
 * each case an interrupted test run never ran, named from `caseNames`), then a summary line.
 */
export function formatTable(report: TestRunReport, caseNames: readonly string[] = []): string {
  const notRun = casesNotRun(report, caseNames);
  const rows = report.results.map((result) => [
    result.passed ? 'PASS' : isInterrupted(result) ? 'ERROR' : 'FAIL',
    result.name,
    `${result.assertions.filter((assertion) => assertion.passed).length}/${result.assertions.length}`,
    String(result.total_tokens),
    costText(result.cost),
    result.duration_ms === null ? '-' : String(result.duration_ms),
    result.replayed ? 'replay' : 'live',
    result.passed ? '' : failureOf(result),
  ]);
  rows.push(...notRun.names.map((name) => ['NOT RUN', name, '-', '-', '-', '-', '-', notRun.why]));
  const header = ['RESULT', 'CASE', 'ASSERTIONS', 'TOKENS', 'COST', 'MS', 'MODE', 'WHY'];
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column].length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : pad(cell, widths[column])))
      .join('  ')
      .trimEnd();
  const { summary } = report;
  return [
    line(header),
    ...rows.map(line),
    '',
    `${summary.passed} passed, ${summary.failed} failed${notRun.names.length > 0 ? `, ${notRun.names.length} not run` : ''} ` +
      `of ${summary.cases} cases, ${summary.total_tokens} tokens, ` +
      `cost ${costText(summary.cost)} (test run ${report.id})`,
    ...(report.error ? [`The test run ended early: ${report.error}`] : []),
  ].join('\n');
}

const escapeXml = (text: string) =>
  text.replace(
    /[<>&"']/g,
    (char) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[char] ?? char,
  );

const costProperty = (cost: Cost | null | undefined, indent: string): string[] =>
  cost === undefined
    ? []
    : [
        `${indent}<properties>`,
        `${indent}  <property name="cost" value="${escapeXml(costText(cost))}"/>`,
        `${indent}</properties>`,
      ];

/**
 * JUnit XML of the test run: one testcase per case, a `failure` element naming why a case failed, an `error`
 * element for a case whose run was cancelled or did not end, and for each case an interrupted test run never
 * ended (named from `caseNames`, the cases sent; `not run N` when unknown); the cost of the test run and of each
 * case as a `cost` property (`0.0022 USD`, or `unknown`).
 */
export function formatJunit(report: TestRunReport, suiteName: string, caseNames: readonly string[] = []): string {
  const { summary } = report;
  const open = (name: string, seconds: string) =>
    `    <testcase classname="${escapeXml(suiteName)}" name="${escapeXml(name)}" time="${seconds}"`;
  const cases = report.results.map((result) => {
    const start = open(result.name, ((result.duration_ms ?? 0) / 1000).toFixed(3));
    const properties = costProperty(result.cost, '      ');
    if (result.passed && properties.length === 0) return `${start}/>`;
    const why = failureOf(result);
    const run = result.run_id === null ? '' : `run ${result.run_id}: `;
    const element = isInterrupted(result) ? 'error' : 'failure';
    const verdict = result.passed
      ? []
      : [`      <${element} message="${escapeXml(why)}">${escapeXml(run + why)}</${element}>`];
    return [`${start}>`, ...properties, ...verdict, '    </testcase>'].join('\n');
  });
  const notRun = casesNotRun(report, caseNames);
  const notRunCases = notRun.names.map((name) =>
    [`${open(name, '0.000')}>`, `      <error message="${escapeXml(notRun.why)}"/>`, '    </testcase>'].join('\n'),
  );
  const interrupted = report.results.filter(isInterrupted).length;
  const failures = report.results.filter((result) => !result.passed).length - interrupted;
  const errors = interrupted + notRunCases.length;
  const counts = `tests="${summary.cases}" failures="${failures}" errors="${errors}"`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites ${counts}>`,
    `  <testsuite name="${escapeXml(suiteName)}" ${counts} time="${(summary.duration_ms / 1000).toFixed(3)}">`,
    ...costProperty(summary.cost, '    '),
    ...cases,
    ...notRunCases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}

/** The CLI's exit code: 0 when every case passed, 1 when one failed or the test run ended early (interrupted). */
export const exitCodeOf = (report: TestRunReport): number =>
  report.status === 'passed' && report.summary.failed === 0 ? 0 : 1;
