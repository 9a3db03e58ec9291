import { Test, type TestingModule } from '@nestjs/testing';
import { loadConfig } from '../config/app-config';
import { ConfigModule } from '../config/config.module';
import { MissingPortError, type Port } from '../common/port';
import { TOOL_IMPLEMENTATIONS, type ToolImplementations } from '../tools/tool-implementations';
import { ExecutorsModule } from './executors.module';
import { CODE_SANDBOX } from './executors.tokens';
import { MCP_TOOL_CALLER, type McpToolCaller } from './mcp/mcp-tool-caller';
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
const fakeMcpCaller: McpToolCaller = { callTool: () => Promise.reject(new Error('not used here')) };

describe(ExecutorsModule.name, () => {
  let moduleRef: TestingModule | undefined;

  afterEach(async () => {
    await moduleRef?.close();
    moduleRef = undefined;
  });

  const executorsModule = () =>
    Test.createTestingModule({ imports: [ConfigModule.forRoot(config), ExecutorsModule] })
      .overrideProvider(CODE_SANDBOX)
      .useValue(idleSandbox)
      .compile();

  it('should refuse to start when no module registers WORKFLOW_TOOL_RUNNER or MCP_TOOL_CALLER', async () => {
    // Not closed afterwards: close() re-throws the failed start.
    const incomplete = await executorsModule();

    await expect(incomplete.init()).rejects.toThrow(MissingPortError);
    await expect(incomplete.init()).rejects.toThrow('WORKFLOW_TOOL_RUNNER, MCP_TOOL_CALLER');
  });

  it('should refuse to start when only one of its ports has an implementation', async () => {
    const incomplete = await executorsModule();
    incomplete.get<Port<WorkflowToolRunner>>(WORKFLOW_TOOL_RUNNER).provide(fakeRunner);

    await expect(incomplete.init()).rejects.toThrow('No implementation registered for port MCP_TOOL_CALLER');
  });

  it('should derive a workflow tool’s parameters through the registered WORKFLOW_TOOL_RUNNER', async () => {
    moduleRef = await executorsModule();
    moduleRef.get<Port<WorkflowToolRunner>>(WORKFLOW_TOOL_RUNNER).provide(fakeRunner);
    moduleRef.get<Port<McpToolCaller>>(MCP_TOOL_CALLER).provide(fakeMcpCaller);
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
