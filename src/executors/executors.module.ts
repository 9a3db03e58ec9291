import {
  Inject,
  Logger,
  Module,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { type Port, portProvider, requirePorts } from '../common/port';
import { BuiltinCatalog } from './builtin/builtin-catalog';
import { createBuiltinExecutor } from './builtin/builtin-executor';
import { BUILTIN_TOOLS } from './builtin/builtin-tools';
import { closeQueryConnections } from './builtin/sql/query-connections';
import { warnAboutQueryExposure } from './builtin/sql/query-exposure';
import { createCodeExecutor, type PythonRunner } from './code/code-executor';
import { namespacesAvailable, PythonSandbox } from './code/python-sandbox';
import { CodeSandbox } from './code/sandbox';
import { ExecutorCatalog } from './executor-catalog';
import { BUILTIN_CATALOG, CODE_SANDBOX, EXECUTOR_CATALOG, OUTBOUND_CLIENT, PYTHON_RUNNER } from './executors.tokens';
import { createHttpExecutor } from './http/http-executor';
import { createMcpExecutor } from './mcp/mcp-executor';
import { MCP_TOOL_CALLER, type McpToolCaller } from './mcp/mcp-tool-caller';
import { OutboundClient } from '../outbound/outbound-client';
import { TOOL_IMPLEMENTATIONS } from '../tools/tool-implementations';
import { createWorkflowExecutor } from './workflow/workflow-executor';
import { WORKFLOW_TOOL_RUNNER, type WorkflowToolRunner } from './workflow/workflow-tool-runner';

/**
 * Builds the executors once from config; tools/ validates configs with them (as its TOOL_IMPLEMENTATIONS port),
 * registry/ runs them. The workflow and MCP executors call up through ports: workflow/ registers the
 * WORKFLOW_TOOL_RUNNER, mcp/ the MCP_TOOL_CALLER, each at its init.
 */
@Module({
  providers: [
    portProvider(WORKFLOW_TOOL_RUNNER),
    portProvider(MCP_TOOL_CALLER),
    {
      provide: OUTBOUND_CLIENT,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) =>
        new OutboundClient({
          allowPrivate: config.outbound.allowPrivate,
          defaultTimeoutMs: config.outbound.timeoutMs,
          maxResponseBytes: config.outbound.maxResponseBytes,
          maxRedirects: config.outbound.maxRedirects,
          userAgent: 'ToolFlow/0.1 (+https://github.com/toolflow)',
        }),
    },
    {
      provide: CODE_SANDBOX,
      inject: [APP_CONFIG],
      useFactory: ({ code }: AppConfig) =>
        new CodeSandbox({
          processes: code.processes,
          isolatesPerProcess: code.isolatesPerProcess,
          maxPerOwner: code.maxCallsPerUser,
          maxQueueMs: code.maxQueueMs,
          logger: new Logger(CodeSandbox.name),
        }),
    },
    {
      provide: PYTHON_RUNNER,
      inject: [APP_CONFIG],
      useFactory: ({ code }: AppConfig): PythonRunner => {
        const logger = new Logger(PythonSandbox.name);
        if (code.pythonIsolation === 'namespaces' && !namespacesAvailable()) {
          const reason =
            'Python code tools are not available on this service: it cannot start a process in its own user and ' +
            'network namespaces (unshare failed); an operator may set PYTHON_SANDBOX_ISOLATION=none to run them ' +
            'under the permission model only, with network access';
          logger.warn(reason);
          return { unavailable: reason };
        }
        return new PythonSandbox({
          processes: code.pythonProcesses,
          maxQueueMs: code.maxQueueMs,
          isolation: code.pythonIsolation,
          logger,
        });
      },
    },
    {
      provide: BUILTIN_CATALOG,
      useFactory: () => new BuiltinCatalog(BUILTIN_TOOLS),
    },
    {
      provide: EXECUTOR_CATALOG,
      inject: [
        APP_CONFIG,
        OUTBOUND_CLIENT,
        CODE_SANDBOX,
        PYTHON_RUNNER,
        BUILTIN_CATALOG,
        WORKFLOW_TOOL_RUNNER,
        MCP_TOOL_CALLER,
      ],
      useFactory: (
        config: AppConfig,
        outbound: OutboundClient,
        sandbox: CodeSandbox,
        python: PythonRunner,
        builtins: BuiltinCatalog,
        workflowRunner: Port<WorkflowToolRunner>,
        mcpCaller: Port<McpToolCaller>,
      ) =>
        new ExecutorCatalog({
          builtin: createBuiltinExecutor(builtins, {
            outbound,
            files: config.files,
            queryDatabase: config.queryDatabase,
          }),
          http: createHttpExecutor({ outbound }),
          code: createCodeExecutor(sandbox, config.code, python),
          workflow: createWorkflowExecutor(() => workflowRunner.get(), config.workflows.maxDepth),
          mcp: createMcpExecutor(() => mcpCaller.get(), config.tools.defaultTimeoutMs),
        }),
    },
    { provide: TOOL_IMPLEMENTATIONS, useExisting: EXECUTOR_CATALOG },
  ],
  exports: [
    EXECUTOR_CATALOG,
    BUILTIN_CATALOG,
    OUTBOUND_CLIENT,
    TOOL_IMPLEMENTATIONS,
    CODE_SANDBOX,
    WORKFLOW_TOOL_RUNNER,
    MCP_TOOL_CALLER,
  ],
})
export class ExecutorsModule implements OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(ExecutorsModule.name);
  private queryExposureCheck: Promise<void> = Promise.resolve();

  constructor(
    @Inject(CODE_SANDBOX) private readonly sandbox: CodeSandbox,
    @Inject(PYTHON_RUNNER) private readonly python: PythonRunner,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(WORKFLOW_TOOL_RUNNER) private readonly workflowRunner: Port<WorkflowToolRunner>,
    @Inject(MCP_TOOL_CALLER) private readonly mcpCaller: Port<McpToolCaller>,
  ) {}

  /** Checks the query database's exposure, and starts the sandbox process so the first code tool call does not pay for it. */
  async onModuleInit(): Promise<void> {
    const query = this.config.queryDatabase;
    // Not awaited: a slow or absent query database must not hold up the start.
    if (query) this.queryExposureCheck = warnAboutQueryExposure(query.url, this.config.database, this.logger);
    await this.sandbox.warmUp();
  }

  /** Refuses to start when a port has no implementation: workflow or MCP tools would fail on every call. */
  onApplicationBootstrap(): void {
    requirePorts(this.workflowRunner, this.mcpCaller);
  }

  async onApplicationShutdown(): Promise<void> {
    this.sandbox.dispose();
    if (this.python instanceof PythonSandbox) this.python.dispose();
    await this.queryExposureCheck;
    await closeQueryConnections();
  }
}
