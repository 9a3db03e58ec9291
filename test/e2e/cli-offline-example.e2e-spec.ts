import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const JUNIT = join(ROOT, 'junit.xml');
const TIMEOUT_MS = 600_000;

/** The commands of docs/testing.md between the offline-cli markers, one a line. */
function documentedCommands(): string[] {
  const docs = readFileSync(join(ROOT, 'docs', 'testing.md'), 'utf8');
  const block = /<!-- offline-cli:start[^>]*-->\s*```sh\n([\s\S]*?)```\s*<!-- offline-cli:end -->/.exec(docs);
  if (!block) throw new Error('docs/testing.md has no offline-cli block');
  return block[1].split('\n').filter((line) => line.trim() !== '');
}

/**
 * `sh -c <command>` in the repository with only PATH and HOME: no API key, no provider settings, so no model is
 * reachable (a model call would fail the case) and the cassettes answer every call.
 */
const shell = (command: string): Promise<{ code: number | null; stdout: string; stderr: string }> =>
  new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', command], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });

describe('docs/testing.md: the CLI from a fresh clone with no model reachable (e2e)', () => {
  afterAll(() => rmSync(JUNIT, { force: true }));

  it(
    'should run the documented commands: exit 1 on the edited workflow, 0 on the recorded one, with --junit',
    async () => {
      const commands = documentedCommands();
      expect(commands).toEqual([
        'npm ci',
        'npx tsc -b tsconfig.build.json',
        expect.stringMatching(/^npx toolflow test examples\/testing\/weather-edited\.json /),
        expect.stringMatching(/^npx toolflow test examples\/weather\.json /),
      ]);
      // `npm ci` is what made the node_modules these tests run from; the rest runs as written.
      const [, build, failing, fixed] = commands;

      expect(await shell(build)).toMatchObject({ code: 0 });

      rmSync(JUNIT, { force: true });
      const failed = await shell(failing);
      expect(failed).toMatchObject({ code: 1, stderr: '' });
      expect(failed.stdout).toMatch(
        /FAIL\s+lisbon\s+\S+\s+\d+\s+.+\s+replay\s+.*message 0 \(system\) differs at content/,
      );
      expect(failed.stdout).toMatch(/FAIL\s+beijing\s+.*message 0 \(system\) differs at content/);
      expect(failed.stdout).toContain('0 passed, 2 failed of 2 cases');
      expect(readFileSync(JUNIT, 'utf8')).toMatch(/<testsuite name="weather" tests="2" failures="2"/);

      rmSync(JUNIT, { force: true });
      const passed = await shell(fixed);
      expect(passed).toMatchObject({ code: 0, stderr: '' });
      expect(passed.stdout).toMatch(/PASS\s+lisbon\s+3\/3\s+1085\s+0\.003125 USD\s+\d+\s+replay/);
      expect(passed.stdout).toMatch(/PASS\s+beijing\s+3\/3\s+1085\s+0\.003125 USD\s+\d+\s+replay/);
      expect(passed.stdout).toContain('2 passed, 0 failed of 2 cases, 2170 tokens, cost 0.00625 USD');
      expect(existsSync(JUNIT)).toBe(true);
      expect(readFileSync(JUNIT, 'utf8')).toMatch(/<testsuite name="weather" tests="2" failures="0"/);
      process.stdout.write(`${failing}\n${failed.stdout}\n${fixed}\n${passed.stdout}\n`);
    },
    TIMEOUT_MS,
  );
});
