import { Inject, Logger, Module, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { BuiltinCatalog } from './builtin/builtin-catalog';
import { createBuiltinExecutor } from './builtin/builtin-executor';
import { BUILTIN_TOOLS } from './builtin/builtin-tools';
import { closeQueryConnections } from './builtin/sql/query-connections';
import { warnAboutQueryExposure } from './builtin/sql/query-exposure';
import { createCodeExecutor } from './code/code-executor';
import { CodeSandbox } from './code/sandbox';
import { ExecutorCatalog } from './executor-catalog';
import { BUILTIN_CATALOG, CODE_SANDBOX, EXECUTOR_CATALOG, OUTBOUND_CLIENT } from './executors.tokens';
import { createHttpExecutor } from './http/http-executor';
import { createMcpExecutor } from './mcp/mcp-executor';
import { MCP_TOOL_CALLER, type McpToolCaller } from './mcp/mcp-tool-caller';
import { OutboundClient } from '../outbound/outbound-client';
import { TOOL_IMPLEMENTATIONS } from '../tools/tool-implementations';
import { createWorkflowExecutor } from './workflow/workflow-executor';
import { WORKFLOW_TOOL_RUNNER, type WorkflowToolRunner } from './workflow/workflow-tool-runner';

/** The WorkflowToolRunner the workflow module provides; it is built after (and on top of) this module. */
const workflowRunner = (moduleRef: ModuleRef) => () =>
  moduleRef.get<WorkflowToolRunner>(WORKFLOW_TOOL_RUNNER, { strict: false });

/** The McpToolCaller the mcp module provides; like the workflow runner, it is built on top of this module. */
const mcpCaller = (moduleRef: ModuleRef) => () => moduleRef.get<McpToolCaller>(MCP_TOOL_CALLER, { strict: false });

/**
 * Builds the executors once from config; tools/ validates configs with them (as its TOOL_IMPLEMENTATIONS port),
 * registry/ runs them.
 */
@Module({
  providers: [
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
      provide: BUILTIN_CATALOG,
      useFactory: () => new BuiltinCatalog(BUILTIN_TOOLS),
    },
    {
      provide: EXECUTOR_CATALOG,
      inject: [APP_CONFIG, OUTBOUND_CLIENT, CODE_SANDBOX, ModuleRef, BUILTIN_CATALOG],
      useFactory: (
        config: AppConfig,
        outbound: OutboundClient,
        sandbox: CodeSandbox,
        moduleRef: ModuleRef,
        builtins: BuiltinCatalog,
      ) =>
        new ExecutorCatalog({
          builtin: createBuiltinExecutor(builtins, {
            outbound,
            files: config.files,
            queryDatabase: config.queryDatabase,
          }),
          http: createHttpExecutor({ outbound }),
          code: createCodeExecutor(sandbox, config.code),
          workflow: createWorkflowExecutor(workflowRunner(moduleRef), config.workflows.maxDepth),
          mcp: createMcpExecutor(mcpCaller(moduleRef), config.tools.defaultTimeoutMs),
        }),
    },
    { provide: TOOL_IMPLEMENTATIONS, useExisting: EXECUTOR_CATALOG },
  ],
  exports: [EXECUTOR_CATALOG, BUILTIN_CATALOG, OUTBOUND_CLIENT, TOOL_IMPLEMENTATIONS, CODE_SANDBOX],
})
export class ExecutorsModule implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(ExecutorsModule.name);
  private queryExposureCheck: Promise<void> = Promise.resolve();

  constructor(
    @Inject(CODE_SANDBOX) private readonly sandbox: CodeSandbox,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly moduleRef: ModuleRef,
  ) {}

  /**
   * Refuses to start without a WorkflowToolRunner (workflow tools would fail on every call), checks the query
   * database's exposure, and starts the sandbox process so the first code tool call does not pay for it.
   */
  async onModuleInit(): Promise<void> {
    try {
      workflowRunner(this.moduleRef)();
    } catch (error) {
      throw new Error('No provider of WORKFLOW_TOOL_RUNNER: the app must import WorkflowModule', { cause: error });
    }
    const query = this.config.queryDatabase;
    // Not awaited: a slow or absent query database must not hold up the start.
    if (query) this.queryExposureCheck = warnAboutQueryExposure(query.url, this.config.database, this.logger);
    await this.sandbox.warmUp();
  }

  async onApplicationShutdown(): Promise<void> {
    this.sandbox.dispose();
    await this.queryExposureCheck;
    await closeQueryConnections();
  }
}
