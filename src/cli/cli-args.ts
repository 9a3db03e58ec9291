/** What `toolflow test` was asked to do. */
export interface TestCommand {
  workflowFile: string;
  casesFile: string;
  /** A folder of cassettes, `<case name>.json`: a case with one replays it instead of calling models. */
  replayDir?: string;
  /** A running ToolFlow; absent: an embedded one (SQLite in a temp folder). */
  url?: string;
  key?: string;
  junitFile?: string;
}

export const USAGE =
  'usage: toolflow test <workflow.json> --cases <cases.jsonl> [--replay <cassettes dir>] ' +
  '[--url <ToolFlow url> --key <API key>] [--junit <out.xml>]';

export class UsageError extends Error {
  constructor(message: string) {
    super(`${message}\n${USAGE}`);
    this.name = 'UsageError';
  }
}

const OPTIONS: Record<string, keyof TestCommand> = {
  '--cases': 'casesFile',
  '--replay': 'replayDir',
  '--url': 'url',
  '--key': 'key',
  '--junit': 'junitFile',
};

/** Reads `test <workflow.json> --cases … [options]` (also `--option=value`); a wrong command is a UsageError. */
export function parseTestCommand(argv: readonly string[]): TestCommand {
  const [command, ...rest] = argv;
  if (command !== 'test')
    throw new UsageError(command === undefined ? 'no command given' : `unknown command "${command}"`);
  const values: Partial<Record<keyof TestCommand, string>> = {};
  const positional: string[] = [];
  for (let index = 0; index < rest.length; index++) {
    const argument = rest[index];
    if (!argument.startsWith('--')) {
      positional.push(argument);
      continue;
    }
    const [flag, inline] = argument.split(/=(.*)/s, 2);
    const field = OPTIONS[flag];
    if (field === undefined) throw new UsageError(`unknown option ${flag}`);
    const value = inline ?? rest[++index];
    if (value === undefined || value === '') throw new UsageError(`${flag} needs a value`);
    values[field] = value;
  }
  if (positional.length !== 1) throw new UsageError('give exactly one workflow file');
  if (values.casesFile === undefined) throw new UsageError('--cases is required');
  if ((values.url === undefined) !== (values.key === undefined)) throw new UsageError('--url and --key go together');
  return { ...values, workflowFile: positional[0], casesFile: values.casesFile };
}
