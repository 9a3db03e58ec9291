import type { TestingModule } from '@nestjs/testing';
import { getRepositoryToken, TypeOrmModule } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { userPrincipal } from '../../test/factories/run.factory';
import { newTool } from '../../test/factories/tool.factory';
import { permissiveImplementations } from '../../test/factories/tool-implementations.factory';
import { sqliteTestingModule } from '../../test/support/sqlite-testing-module';
import { CallLogWriter } from '../call-logs/call-log-writer.service';
import { ToolCallLogsModule } from '../call-logs/tool-call-logs.module';
import { TOOL_USE_COUNTS } from '../call-logs/tool-use-counts';
import { ToolCallLogsService } from '../call-logs/tool-call-logs.service';
import type { ToolPins } from '../tools/stored-tool';
import { TOOL_IMPLEMENTATIONS } from '../tools/tool-implementations';
import { TOOL_VERSION_LISTENER } from '../tools/tool-version-listener';
import { TOOL_DEPENDANTS } from '../tools/tool-dependants';
import { portProvider, providedPort } from '../common/port';
import { ToolEntity } from '../tools/tool.entity';
import { ToolVersionEntity } from '../tools/tool-version.entity';
import { ToolFieldsService } from '../tools/tool-fields.service';
import { ToolVersionsService } from '../tools/tool-versions.service';
import { ToolsService } from '../tools/tools.service';
import { AuditModule } from '../audit/audit.module';
import type { AgentLoopCheckpoint } from '../agent/loop-checkpoint';
import { logCheckpointedCalls } from './checkpointed-call-logs';
import type { WorkflowDefinition } from './definition.schema';
import { NODE_HANDLERS } from './nodes/node-handlers';
import { RunCheckpointer, type RunState } from './execution/run-checkpointer';

const owner = userPrincipal('owner');

const implementations = permissiveImplementations();

const definition = {
  name: 'crash',
  nodes: [
    { id: 'start', type: 'start' },
    { id: 'llm-1', type: 'llm', data: { prompt: 'Write', tools: ['write'] } },
    { id: 'end', type: 'end' },
  ],
  edges: [],
} as unknown as WorkflowDefinition;

/** An LLM node's step stored while its round ran: call_written answered, call_write executing. */
const stepInFlight = (): AgentLoopCheckpoint => ({
  messages: [],
  toolCalls: [],
  usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15, modelCalls: 1 },
  iterationsUsed: 1,
  startedToolCalls: 2,
  forcing: false,
  invalidCalls: {} as AgentLoopCheckpoint['invalidCalls'],
  repetition: {} as AgentLoopCheckpoint['repetition'],
  round: {
    calls: [
      {
        call: { id: 'call_written', name: 'write', arguments: '{"id":"w"}' },
        verdict: 'ok',
        answer: { status: 'success', response: '{"done":"w"}', durationMs: 7 },
      },
      { call: { id: 'call_write', name: 'write', arguments: '{"id":"b"}' }, verdict: 'ok' },
    ],
    malformed: [],
  },
});

describe(logCheckpointedCalls.name, () => {
  let moduleRef: TestingModule;
  let callLogs: CallLogWriter;
  let logs: ToolCallLogsService;
  let tools: Repository<ToolEntity>;
  let toolId: string;
  let toolPins: ToolPins;

  const resume = (state: RunState) =>
    logCheckpointedCalls({
      runId: 'run-1',
      userId: owner.userId,
      definition,
      handlers: NODE_HANDLERS,
      checkpoint: new RunCheckpointer('run-1', { save: () => Promise.resolve() }, state, true),
      toolPins,
      callLogs,
    });

  const useCount = async () => (await tools.findOneByOrFail({ id: toolId })).useCount;

  beforeEach(async () => {
    moduleRef = await sqliteTestingModule(
      [TypeOrmModule.forFeature([ToolEntity, ToolVersionEntity]), ToolCallLogsModule, AuditModule],
      {
        providers: [
          ToolsService,
          ToolFieldsService,
          ToolVersionsService,
          { provide: TOOL_IMPLEMENTATIONS, useValue: implementations },
          {
            provide: TOOL_VERSION_LISTENER,
            useValue: providedPort(TOOL_VERSION_LISTENER, { toolsChanged: () => Promise.resolve() }),
          },
          portProvider(TOOL_DEPENDANTS),
        ],
        overrides: [
          [
            TOOL_USE_COUNTS,
            providedPort(TOOL_USE_COUNTS, {
              add: (id: string, count: number) => moduleRef.get(ToolsService).incrementUseCount(id, count),
              addition: (id: string, count: number) => moduleRef.get(ToolsService).useCountIncrement(id, count),
            }),
          ],
        ],
      },
    );
    callLogs = moduleRef.get(CallLogWriter);
    logs = moduleRef.get(ToolCallLogsService);
    tools = moduleRef.get(getRepositoryToken(ToolEntity));
    const created = await moduleRef.get(ToolsService).create(newTool({ name: 'write', effect: 'mutating' }), owner);
    toolId = created.id;
    toolPins = { write: { id: created.id, version: created.version } };
  }, 60_000);

  afterEach(() => moduleRef.close());

  it('should write the log row of a call the checkpoint holds as answered and count its use', async () => {
    const written = await resume({ nodes: { start: { output: {} }, 'llm-1': { step: stepInFlight() } } });

    const rows = await logs.listForRun('run-1');
    expect(written).toHaveLength(1);
    expect(rows).toEqual([
      expect.objectContaining({
        toolId,
        toolName: 'write',
        toolVersion: 1,
        nodeId: 'llm-1',
        callId: 'call_written',
        userId: owner.userId,
        input: '{"id":"w"}',
        output: '{"done":"w"}',
        status: 'success',
        errorMessage: null,
        durationMs: 7,
      }),
    ]);
    expect(await useCount()).toBe(1);
  });

  it('should add nothing for a call whose log row was written before the crash', async () => {
    const logged = {
      toolId,
      toolName: 'write',
      toolVersion: 1,
      runId: 'run-1',
      nodeId: 'llm-1',
      callId: 'call_written',
      userId: owner.userId,
      input: '{"id":"w"}',
      output: '{"done":"w"}',
      status: 'success' as const,
      errorMessage: null,
      durationMs: 7,
      startedAt: new Date(),
    };
    await logs.insert([logged, { ...logged, runId: 'run-2' }]);

    const written = await resume({ nodes: { 'llm-1': { step: stepInFlight() } } });

    expect(written).toEqual([]);
    expect(await logs.listForRun('run-1')).toHaveLength(1);
    expect(await useCount()).toBe(0);
  });

  it('should write each missing row once when the run resumes twice', async () => {
    const state: RunState = { nodes: { 'llm-1': { step: stepInFlight() } } };

    await resume(state);
    const again = await resume(state);

    expect(again).toEqual([]);
    expect((await logs.listForRun('run-1')).map((row) => row.callId)).toEqual(['call_written']);
    expect(await useCount()).toBe(1);
  });

  it('should keep the repair mark of every call it logs: recovered calls and repaired arguments', async () => {
    const step = stepInFlight();
    const answer = { status: 'success' as const, response: '{"done":true}', durationMs: 4 };
    step.toolCalls = [
      { id: 'call_early', name: 'write', arguments: '{"id":"e"}', status: 'success', response: '{}', duration_ms: 2 },
    ];
    step.toolCalls[0].repair = { kind: 'arguments' };
    step.round = {
      calls: [
        {
          call: { id: 'call_recovered', name: 'write', arguments: '{"id":"r"}', repair: { kind: 'json_answer' } },
          verdict: 'ok',
          answer,
        },
        {
          call: { id: 'call_fixed', name: 'write', arguments: '{"id": "f"' },
          verdict: 'ok',
          answer: { ...answer, repair: { kind: 'arguments' } },
        },
        { call: { id: 'call_clean', name: 'write', arguments: '{"id":"c"}' }, verdict: 'ok', answer },
      ],
      malformed: [],
    };

    await resume({ nodes: { 'llm-1': { step } } });

    const rows = await logs.listForRun('run-1');
    expect(rows.map((row) => [row.callId, row.repair ?? null]).sort()).toEqual([
      ['call_clean', null],
      ['call_early', 'arguments'],
      ['call_fixed', 'arguments'],
      ['call_recovered', 'json_answer'],
    ]);
  });

  it('should log the calls of a node that finished, the ones it answered itself left out', async () => {
    const record = { name: 'write', arguments: '{"id":"x"}', response: 'failed: 500', duration_ms: 3 };
    const state: RunState = {
      nodes: {
        'llm-1': {
          output: {
            output: 'Done',
            tool_calls: [
              { ...record, id: 'call_1', status: 'error' },
              { ...record, id: 'call_2', status: 'skipped' },
              { ...record, id: 'call_3', name: '', status: 'malformed' },
              { ...record, id: 'call_4', name: 'search_tools', status: 'success' },
              { ...record, id: 'call_5', status: 'unknown_outcome' },
            ],
          },
        },
      },
    };

    await resume(state);

    const rows = await logs.listForRun('run-1');
    expect(rows.map((row) => [row.callId, row.status, row.output, row.errorMessage]).sort()).toEqual([
      ['call_1', 'error', null, 'failed: 500'],
      ['call_5', 'unknown_outcome', null, 'failed: 500'],
    ]);
    expect(await useCount()).toBe(2);
  });
});
