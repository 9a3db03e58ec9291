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

const pad = (text: string, width: number) => text + ' '.repeat(Math.max(0, width - text.length));

/** The test run as a text table, one case a row, then a summary line. */
export function formatTable(report: TestRunReport): string {
  const rows = report.results.map((result) => [
    result.passed ? 'PASS' : 'FAIL',
    result.name,
    `${result.assertions.filter((assertion) => assertion.passed).length}/${result.assertions.length}`,
    String(result.total_tokens),
    costText(result.cost),
    result.duration_ms === null ? '-' : String(result.duration_ms),
    result.replayed ? 'replay' : 'live',
    result.passed ? '' : failureOf(result),
  ]);
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
    `${summary.passed} passed, ${summary.failed} failed of ${summary.cases} cases, ${summary.total_tokens} tokens, ` +
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
 * JUnit XML of the test run: one testcase per case, a failure element naming why; the cost of the test run and of
 * each case as a `cost` property (`0.0022 USD`, or `unknown`).
 */
export function formatJunit(report: TestRunReport, suiteName: string): string {
  const { summary } = report;
  const cases = report.results.map((result) => {
    const seconds = ((result.duration_ms ?? 0) / 1000).toFixed(3);
    const open = `    <testcase classname="${escapeXml(suiteName)}" name="${escapeXml(result.name)}" time="${seconds}"`;
    const properties = costProperty(result.cost, '      ');
    if (result.passed && properties.length === 0) return `${open}/>`;
    const why = failureOf(result);
    const run = result.run_id === null ? '' : `run ${result.run_id}: `;
    const failure = result.passed
      ? []
      : [`      <failure message="${escapeXml(why)}">${escapeXml(run + why)}</failure>`];
    return [`${open}>`, ...properties, ...failure, '    </testcase>'].join('\n');
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites tests="${summary.cases}" failures="${summary.failed}">`,
    `  <testsuite name="${escapeXml(suiteName)}" tests="${summary.cases}" failures="${summary.failed}" time="${(summary.duration_ms / 1000).toFixed(3)}">`,
    ...costProperty(summary.cost, '    '),
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}

/** The CLI's exit code: 0 when every case passed, 1 when one failed or the test run ended early (interrupted). */
export const exitCodeOf = (report: TestRunReport): number =>
  report.status === 'passed' && report.summary.failed === 0 ? 0 : 1;
