import { parseTestCommand, UsageError } from './cli-args';
import { exitCodeOf, formatJunit, formatTable, type TestRunReport } from './report';

const report: TestRunReport = {
  id: 'tr-1',
  status: 'failed',
  summary: { cases: 2, passed: 1, failed: 1, total_tokens: 30, duration_ms: 1500, cost: null },
  results: [
    {
      name: 'berlin',
      passed: true,
      run_id: 'r1',
      run_status: 'succeeded',
      replayed: true,
      error: null,
      divergence: null,
      assertions: [{ type: 'text_contains', passed: true, actual: 'x', message: 'contains it' }],
      total_tokens: 15,
      duration_ms: 500,
      cost: { amount: 0.0000225, currency: 'USD' },
    },
    {
      name: 'a<b>',
      passed: false,
      run_id: 'r2',
      run_status: 'succeeded',
      replayed: false,
      error: null,
      divergence: null,
      assertions: [{ type: 'text_equals', passed: false, actual: 'no', message: 'expected "yes"' }],
      total_tokens: 15,
      duration_ms: 1000,
      cost: null,
    },
  ],
};

/** A test run of 3 cases that ended early, interrupted after its first case ended. */
const endedEarly: TestRunReport = {
  ...report,
  status: 'failed',
  error: 'interrupted: the process running it stopped at 2026-12-05T12:00:00.000Z',
  summary: { ...report.summary, cases: 3, passed: 1, failed: 0 },
  results: [report.results[0]],
};

describe(parseTestCommand.name, () => {
  it('should read the workflow file and the options, also as --option=value', () => {
    expect(parseTestCommand(['test', 'wf.json', '--cases=c.jsonl', '--replay', 'tapes', '--junit', 'out.xml'])).toEqual(
      {
        workflowFile: 'wf.json',
        casesFile: 'c.jsonl',
        replayDir: 'tapes',
        junitFile: 'out.xml',
      },
    );
  });

  it('should refuse a wrong command with the usage', () => {
    expect(() => parseTestCommand(['run'])).toThrow(UsageError);
    expect(() => parseTestCommand(['test', 'wf.json'])).toThrow('--cases is required');
    expect(() => parseTestCommand(['test', 'wf.json', '--cases', 'c', '--url', 'http://x'])).toThrow('go together');
    expect(() => parseTestCommand(['test', 'wf.json', '--cases', 'c', '--nope', '1'])).toThrow('unknown option --nope');
  });
});

describe(formatTable.name, () => {
  it('should show a row per case with why it failed, and the summary', () => {
    const table = formatTable(report);
    expect(table).toMatch(/RESULT\s+CASE\s+ASSERTIONS\s+TOKENS\s+COST\s+MS\s+MODE\s+WHY/);
    expect(table).toMatch(/PASS\s+berlin\s+1\/1\s+15\s+0\.0000225 USD\s+500\s+replay/);
    expect(table).toMatch(
      /FAIL\s+a<b>\s+0\/1\s+15\s+unknown\s+1000\s+live\s+text_equals: expected "yes" \(actual "no"\)/,
    );
    expect(table).toContain('1 passed, 1 failed of 2 cases, 30 tokens, cost unknown (test run tr-1)');
  });

  it('should show the total cost, and "-" for a service that reports none', () => {
    const priced = { ...report, summary: { ...report.summary, cost: { amount: 0.00045, currency: 'USD' } } };
    expect(formatTable(priced)).toContain('cost 0.00045 USD (test run tr-1)');
    const { cost: _cost, ...older } = report.results[0];
    expect(formatTable({ ...report, results: [older] })).toMatch(/PASS\s+berlin\s+1\/1\s+15\s+-\s+500/);
  });
});

describe(`${formatTable.name}, when a test run did not end every case`, () => {
  it('should list each case an interrupted test run never ran as NOT RUN, by name, and count them', () => {
    const table = formatTable(endedEarly, ['berlin', 'a<b>', 'paris']);

    for (const name of ['a<b>', 'paris']) {
      expect(table).toMatch(
        new RegExp(`NOT RUN\\s+${name}\\s+-\\s+-\\s+-\\s+-\\s+-\\s+not run: the test run ended early: interrupted`),
      );
    }
    expect(table).toContain('1 passed, 0 failed, 2 not run of 3 cases');
  });

  it('should show a case whose run was cancelled as ERROR, not FAIL', () => {
    const cancelled = { ...report.results[1], run_status: 'cancelled', error: 'the run ended cancelled' };

    const table = formatTable({ ...report, results: [report.results[0], cancelled] });

    expect(table).toMatch(/ERROR\s+a<b>\s+0\/1/);
    expect(table).not.toMatch(/FAIL\s+a<b>/);
  });
});

describe(exitCodeOf.name, () => {
  const interrupted: TestRunReport = {
    ...report,
    status: 'failed',
    error: 'interrupted: the process running it stopped at 2026-12-05T12:00:00.000Z',
    summary: { ...report.summary, passed: 1, failed: 0 },
    results: [report.results[0]],
  };

  it('should exit 0 when every case passed and 1 when one failed', () => {
    expect(exitCodeOf({ ...interrupted, status: 'passed', error: null })).toBe(0);
    expect(exitCodeOf(report)).toBe(1);
  });

  it('should exit 1 and say why when the test run ended early, though no ended case failed', () => {
    expect(exitCodeOf(interrupted)).toBe(1);
    expect(formatTable(interrupted)).toContain(
      'The test run ended early: interrupted: the process running it stopped at 2026-12-05T12:00:00.000Z',
    );
  });
});

describe(formatJunit.name, () => {
  it('should write a testcase per case, escaped, with a failure naming why', () => {
    const xml = formatJunit(report, 'weather');
    expect(xml).toContain('<testsuite name="weather" tests="2" failures="1" errors="0" time="1.500">');
    expect(xml).toContain('<testcase classname="weather" name="berlin" time="0.500">');
    expect(xml).toContain('name="a&lt;b&gt;"');
    expect(xml).toContain('<failure message="text_equals: expected &quot;yes&quot; (actual &quot;no&quot;)">run r2: ');
  });

  it('should carry the cost of the test run and of each case as a property', () => {
    const xml = formatJunit(report, 'weather');
    expect(xml).toMatch(/<testsuite [^>]*>\s*<properties>\s*<property name="cost" value="unknown"\/>/);
    expect(xml).toMatch(
      /name="berlin" time="0.500">\s*<properties>\s*<property name="cost" value="0.0000225 USD"\/>\s*<\/properties>\s*<\/testcase>/,
    );
    expect(xml).toMatch(/name="a&lt;b&gt;" time="1.000">\s*<properties>\s*<property name="cost" value="unknown"\/>/);
  });

  it('should mark a case whose run was cancelled or did not end as an error, not a failure', () => {
    const cancelled = {
      ...report.results[1],
      name: 'cancelled',
      run_status: 'cancelled',
      error: 'the run ended cancelled',
      assertions: [],
    };
    const xml = formatJunit({ ...report, results: [report.results[0], cancelled] }, 'weather');

    expect(xml).toContain('<testsuite name="weather" tests="2" failures="0" errors="1"');
    expect(xml).toMatch(
      /name="cancelled" time="1.000">\s*<properties>[\s\S]*?<\/properties>\s*<error message="the run ended cancelled">run r2: the run ended cancelled<\/error>/,
    );
    expect(xml).not.toContain('<failure');
  });

  it('should list the cases an interrupted test run never ended as errors naming why', () => {
    const xml = formatJunit(endedEarly, 'weather', ['berlin', 'a<b>', 'paris']);

    expect(xml).toContain('<testsuite name="weather" tests="3" failures="0" errors="2"');
    expect(xml).toContain('<testcase classname="weather" name="berlin" time="0.500">');
    for (const name of ['a&lt;b&gt;', 'paris']) {
      expect(xml).toContain(
        `<testcase classname="weather" name="${name}" time="0.000">\n` +
          '      <error message="not run: the test run ended early: interrupted: the process running it stopped at ' +
          '2026-12-05T12:00:00.000Z"/>\n    </testcase>',
      );
    }
    expect(xml.match(/<testcase /g)).toHaveLength(3);
  });
});
