import { Inject, Logger, Module, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
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
import {
  BUILTIN_CATALOG,
  CODE_SANDBOX,
  EXECUTOR_CATALOG,
  OUTBOUND_CLIENT,
  WORKFLOW_TOOL_RUNNER,
} from './executors.tokens';
import { createHttpExecutor } from './http/http-executor';
import { OutboundClient } from '../outbound/outbound-client';
import { createWorkflowExecutor, WorkflowRunnerRef } from './workflow/workflow-executor';

/** Builds the executors once from config; tools/ validates configs with them, registry/ runs them. */
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
    { provide: WORKFLOW_TOOL_RUNNER, useFactory: () => new WorkflowRunnerRef() },
    {
      provide: BUILTIN_CATALOG,
      useFactory: () => new BuiltinCatalog(BUILTIN_TOOLS),
    },
    {
      provide: EXECUTOR_CATALOG,
      inject: [APP_CONFIG, OUTBOUND_CLIENT, CODE_SANDBOX, WORKFLOW_TOOL_RUNNER, BUILTIN_CATALOG],
      useFactory: (
        config: AppConfig,
        outbound: OutboundClient,
        sandbox: CodeSandbox,
        workflows: WorkflowRunnerRef,
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
          workflow: createWorkflowExecutor(workflows, config.workflows.maxDepth),
        }),
    },
  ],
  exports: [EXECUTOR_CATALOG, BUILTIN_CATALOG, OUTBOUND_CLIENT, WORKFLOW_TOOL_RUNNER],
})
export class ExecutorsModule implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(ExecutorsModule.name);
  private queryExposureCheck: Promise<void> = Promise.resolve();

  constructor(
    @Inject(CODE_SANDBOX) private readonly sandbox: CodeSandbox,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Starts the sandbox process now so the first code tool call does not pay for it. */
  async onModuleInit(): Promise<void> {
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
