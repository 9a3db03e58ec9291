import { parseTestCommand, UsageError } from './cli-args';
import { formatJunit, formatTable, type TestRunReport } from './report';

const report: TestRunReport = {
  id: 'tr-1',
  status: 'failed',
  summary: { cases: 2, passed: 1, failed: 1, total_tokens: 30, duration_ms: 1500 },
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
    },
  ],
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
    expect(table).toMatch(/PASS\s+berlin\s+1\/1\s+15\s+500\s+replay/);
    expect(table).toMatch(/FAIL\s+a<b>\s+0\/1\s+15\s+1000\s+live\s+text_equals: expected "yes" \(actual "no"\)/);
    expect(table).toContain('1 passed, 1 failed of 2 cases (test run tr-1)');
  });
});

describe(formatJunit.name, () => {
  it('should write a testcase per case, escaped, with a failure naming why', () => {
    const xml = formatJunit(report, 'weather');
    expect(xml).toContain('<testsuite name="weather" tests="2" failures="1" time="1.500">');
    expect(xml).toContain('<testcase classname="weather" name="berlin" time="0.500"/>');
    expect(xml).toContain('name="a&lt;b&gt;"');
    expect(xml).toContain('<failure message="text_equals: expected &quot;yes&quot; (actual &quot;no&quot;)">run r2: ');
  });
});
