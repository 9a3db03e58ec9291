import { ServerResponse } from 'node:http';
import { DataSource, type QueryRunner } from 'typeorm';
import { RunEventsService } from '../../src/runs/run-events.service';
import { type OpenAITestServer, reply, type Turn } from '../support/openai-test-server';
import { readRunEvents } from '../support/sse';
import { countStatements, type StatementCounter } from '../support/statement-counter';
import { ADMIN_KEY, type TestApp } from '../support/test-app';
import { startWorkflowStack, type WorkflowStack } from '../support/workflow-stack';
import { type RunBody, WorkflowApi } from '../support/workflow-api';
import { agentWorkflow, httpToolBody } from '../support/workflow-fixtures';

const ROUNDS = 3;
const CALLS_PER_ROUND = 3;

/** 3 model turns of 3 parallel calls of `ping`, then the answer. */
const conversation = (): Turn[] => [
  ...Array.from({ length: ROUNDS }, (_, round) =>
    reply.toolCalls(
      Array.from({ length: CALLS_PER_ROUND }, (__, call) => ({
        name: 'ping',
        id: `call_${round}_${call}`,
        arguments: { id: `r${round}c${call}` },
      })),
    ),
  ),
  reply.text('Done.'),
];

/** The statements of the queries counted: a query that sends several in one round trip (inOrder) counts each. */
const statementsOf = (counter: StatementCounter) => counter.statements.flatMap((sql) => sql.split(/;\n/));

/** Statements that write into `table` with `verb` (INSERT, UPDATE), on SQLite's and MySQL's quoting alike. */
const writes = (counter: StatementCounter, verb: string, table: string) =>
  statementsOf(counter).filter((sql) => new RegExp(`^${verb}\\s+(INTO\\s+)?["\`]${table}["\`]`, 'i').test(sql)).length;

describe('What one run costs the database (e2e)', () => {
  let stack: WorkflowStack | undefined;
  let app: TestApp;
  let llm: OpenAITestServer;
  let api: WorkflowApi;
  let counter: StatementCounter;

  beforeAll(async () => {
    stack = await startWorkflowStack();
    ({ app, llm } = stack);
    api = new WorkflowApi(app.http, ADMIN_KEY);
    await api.createTool(httpToolBody('ping', `${stack.backend.origin}/ping?id={id}`));
    counter = countStatements(app.app.get(DataSource));
  });

  afterEach(() => llm.reset());

  afterAll(async () => {
    counter.stop();
    await stack?.close();
  });

  const runThreeRounds = async (): Promise<RunBody> => {
    llm.script(conversation());
    const run = await api.run(agentWorkflow({ tools: ['ping'], max_iterations: 10 }), { question: 'Go' });
    expect(run.status).toBe('succeeded');
    return run;
  };

  it('should write the call logs and use counts of a step together, and all of them before the run ends', async () => {
    const before = (await api.get('/tools/ping').expect(200)).body as { use_count: number };
    counter.reset();

    const run = await runThreeRounds();

    const calls = ROUNDS * CALLS_PER_ROUND;
    // One INSERT and one UPDATE per step at most, where each call used to cost one of each.
    expect(writes(counter, 'INSERT', 'tool_call_logs')).toBeGreaterThanOrEqual(1);
    expect(writes(counter, 'INSERT', 'tool_call_logs')).toBeLessThanOrEqual(ROUNDS);
    expect(writes(counter, 'UPDATE', 'tools')).toBeLessThanOrEqual(ROUNDS);
    // A step's log rows, then its use counts, in one round trip on MySQL.
    const mysql = app.app.get(DataSource).options.type === 'mysql';
    const logWrites = counter.statements.filter((sql) => /^INSERT INTO ["`]tool_call_logs["`]/i.test(sql));
    expect(logWrites.map((sql) => /;\nUPDATE ["`]tools["`]/i.test(sql))).toEqual(logWrites.map(() => mysql));
    // Stored by the time the run is reported ended.
    const llmNode = run.nodes?.find((node) => node.node_id === 'llm-1');
    expect(llmNode?.tool_calls).toHaveLength(calls);
    const after = (await api.get('/tools/ping').expect(200)).body as { use_count: number };
    expect(after.use_count - before.use_count).toBe(calls);
  });

  it("should store the state after a model response or tool result, and a node's end, without a transaction", async () => {
    counter.reset();

    await runThreeRounds();

    // None: the agent node's end goes beside its state; start and end are pure nodes (no checkpoint).
    expect(counter.count('BEGIN') + counter.count('START TRANSACTION')).toBe(0);
    expect(writes(counter, 'INSERT', 'run_checkpoints')).toBeGreaterThanOrEqual(ROUNDS + 1);
    // The LLM node's end: its state, then its node run's end, in one round trip on MySQL.
    const nodeEnd = counter.statements.filter((sql) => /(^|;\n)UPDATE ["`]node_runs["`]/i.test(sql));
    expect(nodeEnd).toHaveLength(1);
    const mysql = app.app.get(DataSource).options.type === 'mysql';
    expect(/^INSERT INTO ["`]run_checkpoints["`]/i.test(nodeEnd[0])).toBe(mysql);
  });

  it('should write the node run of a start or end node once, when it ended, the start with the next node run', async () => {
    counter.reset();

    const run = await runThreeRounds();

    // start and llm-1 in one INSERT when llm-1 starts; end once the walk is over.
    expect(writes(counter, 'INSERT', 'node_runs')).toBe(2);
    expect(writes(counter, 'UPDATE', 'node_runs')).toBe(1);
    expect(run.nodes?.map((node) => [node.node_id, node.node_type, node.status])).toEqual([
      ['start', 'start', 'succeeded'],
      ['llm-1', 'llm', 'succeeded'],
      ['end', 'end', 'succeeded'],
    ]);
  });

  it("should store the end node's run just before the run's end, in the same round trip on MySQL", async () => {
    counter.reset();

    await runThreeRounds();

    const last = statementsOf(counter).filter((sql) => /^(INSERT INTO|UPDATE) ["`](node_runs|runs)["`]/i.test(sql));
    expect(last.slice(-2).map((sql) => /^(INSERT INTO|UPDATE) ["`](\w+)["`]/i.exec(sql)?.slice(1).join(' '))).toEqual([
      'INSERT INTO node_runs',
      'UPDATE runs',
    ]);
    const ending = counter.statements.filter((sql) => /^UPDATE ["`]runs["`]|;\nUPDATE ["`]runs["`]/i.test(sql));
    expect(ending).toHaveLength(1);
    const mysql = app.app.get(DataSource).options.type === 'mysql';
    expect(/^INSERT INTO ["`]node_runs["`]/i.test(ending[0])).toBe(mysql);
  });

  it('should store a run it executes at once as running in its INSERT, and update its row only when it ends', async () => {
    counter.reset();

    const run = await runThreeRounds();

    expect(writes(counter, 'INSERT', 'runs')).toBe(1);
    expect(writes(counter, 'UPDATE', 'runs')).toBe(1);
    expect(run.started_at).toBe(run.created_at);
    const { events } = await readRunEvents(app.http, run.id, ADMIN_KEY);
    expect(events.filter((event) => event.event === 'run.started')).toHaveLength(1);
  });

  it('should look the tools of a run up once, when it starts, not again when its node runs', async () => {
    counter.reset();

    await runThreeRounds();

    const toolLookups = counter.statements.filter((sql) => /^SELECT\b[\s\S]*\bFROM\s+["`]tools["`]/i.test(sql));
    expect(toolLookups).toHaveLength(1);
  });

  it("should read the user's quotas while the run's definition and tools are read, not after them", async () => {
    counter.reset();

    await runThreeRounds();

    const firstRead = (table: string) =>
      counter.statements.findIndex((sql) =>
        new RegExp(`^SELECT\\b[\\s\\S]*\\bFROM\\s+["\`]${table}["\`]`, 'i').test(sql),
      );
    expect(firstRead('quotas')).toBeGreaterThanOrEqual(0);
    // Asked for before the tools: the tools' SELECT waits for nothing of it.
    expect(firstRead('quotas')).toBeLessThan(firstRead('tools'));
  });

  it("should answer ?wait=true once the run's end is stored, without waiting for its last events to be written", async () => {
    const driver = app.app.get(DataSource).driver;
    const original = driver.createQueryRunner.bind(driver);
    const wrapped = new WeakSet<QueryRunner>();
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    let held = false;
    // The INSERT of the batch that holds run.finished waits until the test lets it go.
    driver.createQueryRunner = (mode) => {
      const runner = original(mode);
      if (wrapped.has(runner)) return runner;
      wrapped.add(runner);
      const query = runner.query.bind(runner) as (...args: unknown[]) => Promise<unknown>;
      runner.query = (async (sql: string, parameters?: unknown[], ...rest: unknown[]) => {
        if (/^INSERT INTO ["`]run_events["`]/i.test(sql) && parameters?.includes('run.finished')) {
          held = true;
          await released;
        }
        return query(sql, parameters, ...rest);
      }) as QueryRunner['query'];
      return runner;
    };
    try {
      const run = await runThreeRounds();

      expect(held).toBe(true);
      // Meanwhile the run's log is whole for a reader.
      const { events } = await readRunEvents(app.http, run.id, ADMIN_KEY);
      expect(events.at(-1)?.event).toBe('run.finished');
    } finally {
      driver.createQueryRunner = original;
      release();
    }
  });

  it("should send the ?wait=true answer before the INSERT of the run's last events goes out", async () => {
    const order: string[] = [];
    const driver = app.app.get(DataSource).driver;
    const original = driver.createQueryRunner.bind(driver);
    const wrapped = new WeakSet<QueryRunner>();
    driver.createQueryRunner = (mode) => {
      const runner = original(mode);
      if (wrapped.has(runner)) return runner;
      wrapped.add(runner);
      const query = runner.query.bind(runner) as (...args: unknown[]) => Promise<unknown>;
      runner.query = ((sql: string, parameters?: unknown[], ...rest: unknown[]) => {
        if (/^INSERT INTO ["`]run_events["`]/i.test(sql) && parameters?.includes('run.finished')) {
          order.push('run.finished INSERT');
        }
        return query(sql, parameters, ...rest);
      }) as QueryRunner['query'];
      return runner;
    };
    const end = ServerResponse.prototype.end;
    // When the server hands the run's answer to its socket.
    ServerResponse.prototype.end = function (this: ServerResponse, ...args: unknown[]) {
      if (this.req.url?.includes('workflow-runs?wait=true')) order.push('answer');
      return (end as (...endArgs: unknown[]) => ServerResponse).apply(this, args);
    } as typeof end;
    try {
      await runThreeRounds();
      await app.app.get(RunEventsService).flushAll();
    } finally {
      ServerResponse.prototype.end = end;
      driver.createQueryRunner = original;
    }

    expect(order).toEqual(['answer', 'run.finished INSERT']);
  });

  it('should not read back the row or the event log of a run it created when executing it in the same process', async () => {
    counter.reset();

    await runThreeRounds();

    const runReads = counter.statements.filter((sql) => /^SELECT\b[\s\S]*\bFROM\s+["`]runs["`]/i.test(sql));
    const eventReads = counter.statements.filter((sql) => /^SELECT\b[\s\S]*\bFROM\s+["`]run_events["`]/i.test(sql));
    expect(runReads).toHaveLength(0);
    expect(eventReads).toHaveLength(0);
  });

  it('should record each model call in one INSERT, without reading the row back', async () => {
    counter.reset();

    await runThreeRounds();

    const exchangeReads = counter.statements.filter((sql) =>
      /^SELECT\b[\s\S]*\bFROM\s+["`]model_exchanges["`]/i.test(sql),
    );
    expect(writes(counter, 'INSERT', 'model_exchanges')).toBe(ROUNDS + 1);
    expect(exchangeReads).toEqual([]);
  });

  it('should answer ?wait=true from what the run wrote, without reading it back, the same as GET reads it', async () => {
    counter.reset();

    const run = await runThreeRounds();

    const reads = counter.statements.filter((sql) =>
      /^SELECT\b[\s\S]*\bFROM\s+["`](runs|node_runs|tool_call_logs)["`]/i.test(sql),
    );
    expect(reads).toEqual([]);
    const readBack = (await api.get(`/runs/${run.id}`).expect(200)).body as RunBody;
    expect(run).toEqual(readBack);
  });
});
