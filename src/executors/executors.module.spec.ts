import { Test, type TestingModule } from '@nestjs/testing';
import { loadConfig } from '../config/app-config';
import { ConfigModule } from '../config/config.module';
import { TOOL_IMPLEMENTATIONS, type ToolImplementations } from '../tools/tool-implementations';
import { ExecutorsModule } from './executors.module';
import { CODE_SANDBOX } from './executors.tokens';
import { WORKFLOW_TOOL_RUNNER, type WorkflowToolRunner } from './workflow/workflow-tool-runner';

// No code tool runs here, so no sandbox process is started.
const idleSandbox = { warmUp: () => Promise.resolve(), dispose: () => undefined };
const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: 'sqlite::memory:' });
const caller = { userId: 'user-1', isAdmin: false };

const fakeRunner: WorkflowToolRunner = {
  runAsTool: () => Promise.reject(new Error('not used here')),
  inputsSchemaOf: (workflowId) =>
    Promise.resolve(
      workflowId === 'greet' ? { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } : null,
    ),
  unavailableReason: () => Promise.reject(new Error('not used here')),
};

describe(ExecutorsModule.name, () => {
  let moduleRef: TestingModule | undefined;

  afterEach(async () => {
    await moduleRef?.close();
    moduleRef = undefined;
  });

  it('should refuse to start when no module provides WORKFLOW_TOOL_RUNNER', async () => {
    // Not closed afterwards: close() re-throws the failed start, and the check fails before the sandbox starts.
    const incomplete = await Test.createTestingModule({
      imports: [ConfigModule.forRoot(config), ExecutorsModule],
    }).compile();

    await expect(incomplete.init()).rejects.toThrow('No provider of WORKFLOW_TOOL_RUNNER');
  });

  it('should derive a workflow tool’s parameters through the provided WORKFLOW_TOOL_RUNNER', async () => {
    moduleRef = await Test.createTestingModule({
      imports: [ConfigModule.forRoot(config), ExecutorsModule],
      providers: [{ provide: WORKFLOW_TOOL_RUNNER, useValue: fakeRunner }],
    })
      .overrideProvider(CODE_SANDBOX)
      .useValue(idleSandbox)
      .compile();
    await moduleRef.init();
    const sut = moduleRef.get<ToolImplementations>(TOOL_IMPLEMENTATIONS);

    await expect(sut.deriveParameters('workflow', { workflow_id: 'greet' }, caller)).resolves.toEqual({
      ok: true,
      parameters: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    });
    await expect(sut.deriveParameters('workflow', { workflow_id: 'missing' }, caller)).resolves.toEqual({
      ok: false,
      problems: [{ path: '/workflow_id', message: 'no workflow "missing" that this API key can use' }],
    });
    await expect(sut.deriveParameters('http', { url: 'https://example.com' }, caller)).resolves.toBeUndefined();
  });
});
