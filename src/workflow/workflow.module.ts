import { Inject, Module, type OnModuleInit } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { PriceTable } from '../llm/model-prices';
import type { Port } from '../common/port';
import { ExecutorsModule } from '../executors/executors.module';
import { ProviderRegistry } from '../llm/provider-registry';
import { RegistryModule } from '../registry/registry.module';
import { RegistryService } from '../registry/registry.service';
import { ToolCalls } from '../executors/tool-calls.service';
import { CallLogWriter } from '../call-logs/call-log-writer.service';
import { WORKFLOW_TOOL_RUNNER, type WorkflowToolRunner } from '../executors/workflow/workflow-tool-runner';
import { RunsModule } from '../runs/runs.module';
import { NodeRunsService } from '../runs/node-runs.service';
import { RUN_EXECUTOR, type RunExecutor } from '../runs/run-supervisor';
import { ToolResultsService } from '../runs/tool-results.service';
import { ApprovalsService } from '../runs/approvals.service';
import { WORKFLOW_LOOKUP, type WorkflowLookup } from '../runs/workflow-lookup';
import { TOOL_DEPENDANTS, type ToolDependants } from '../tools/tool-dependants';
import { TOOL_VERSION_LISTENER, type ToolVersionListener } from '../tools/tool-version-listener';
import { WorkflowEngine } from './execution/engine';
import { NODE_HANDLERS } from './nodes/node-handlers';
import { WorkflowEntity } from './workflow.entity';
import { WorkflowVersionEntity } from './workflow-version.entity';
import { WorkflowVersionsService } from './workflow-versions.service';
import { ToolEmbeddingEntity } from './tool-selection/tool-embedding.entity';
import { ToolEmbeddingsService } from './tool-selection/tool-embeddings.service';
import { ToolUsageTermEntity } from './tool-selection/tool-usage-term.entity';
import { ToolUsageService } from './tool-selection/tool-usage.service';
import { WORKFLOW_ENGINE, WorkflowRunExecutor } from './execution/run-executor.service';
import { RunStarter } from './execution/run-starter.service';
import { WorkflowToolRuns } from './execution/workflow-tool-runs.service';
import { WorkflowsController } from './workflows.controller';
import { WorkflowsService } from './workflows.service';
import { DefinitionChecker } from './definition-checker.service';
import { WorkflowImportService } from './workflow-import.service';

@Module({
  imports: [
    AuditModule,
    TypeOrmModule.forFeature([WorkflowEntity, WorkflowVersionEntity, ToolEmbeddingEntity, ToolUsageTermEntity]),
    RegistryModule,
    ExecutorsModule,
    RunsModule,
  ],
  controllers: [WorkflowsController],
  exports: [WorkflowsService, WorkflowImportService, WorkflowVersionsService, RunStarter, ToolUsageService],
  providers: [
    WorkflowsService,
    DefinitionChecker,
    WorkflowImportService,
    WorkflowVersionsService,
    ToolEmbeddingsService,
    ToolUsageService,
    WorkflowRunExecutor,
    RunStarter,
    WorkflowToolRuns,
    {
      provide: WORKFLOW_ENGINE,
      inject: [
        RegistryService,
        ToolCalls,
        CallLogWriter,
        ProviderRegistry,
        NodeRunsService,
        ToolResultsService,
        ApprovalsService,
        ToolEmbeddingsService,
        ToolUsageService,
        APP_CONFIG,
        PriceTable,
      ],
      useFactory: (
        registry: RegistryService,
        toolCalls: ToolCalls,
        callLogs: CallLogWriter,
        providers: ProviderRegistry,
        nodeRuns: NodeRunsService,
        toolResults: ToolResultsService,
        approvals: ApprovalsService,
        toolEmbeddings: ToolEmbeddingsService,
        toolUsage: ToolUsageService,
        config: AppConfig,
        prices: PriceTable,
      ) =>
        new WorkflowEngine(
          NODE_HANDLERS,
          {
            providers,
            prices,
            registry,
            toolCalls,
            callLogs,
            defaultProvider: config.defaultProvider,
            defaultTimeoutMs: config.llmLimits.nodeTimeoutMs,
            toolResults: { maxTokens: config.llmLimits.maxToolResultTokens, store: toolResults },
            approvals,
            toolEmbeddings,
            ...(config.llmLimits.toolSelectionLearning && { toolUsage }),
            nested: {
              maxItems: config.workflows.mapMaxItems,
              maxConcurrency: config.workflows.mapMaxConcurrency,
            },
          },
          nodeRuns,
          config.workflows.maxParallelNodes,
        ),
    },
  ],
})
export class WorkflowModule implements OnModuleInit {
  constructor(
    @Inject(WORKFLOW_LOOKUP) private readonly workflowLookup: Port<WorkflowLookup>,
    @Inject(RUN_EXECUTOR) private readonly runExecutor: Port<RunExecutor>,
    @Inject(TOOL_DEPENDANTS) private readonly toolDependants: Port<ToolDependants>,
    @Inject(TOOL_VERSION_LISTENER) private readonly toolVersionListener: Port<ToolVersionListener>,
    @Inject(WORKFLOW_TOOL_RUNNER) private readonly workflowToolRunner: Port<WorkflowToolRunner>,
    private readonly workflows: WorkflowsService,
    private readonly executor: WorkflowRunExecutor,
    private readonly toolRuns: WorkflowToolRuns,
    private readonly toolEmbeddings: ToolEmbeddingsService,
    private readonly toolUsage: ToolUsageService,
  ) {}

  /** The ports the modules below declare and this one implements: runs/, tools/ and executors/ call up through them. */
  onModuleInit(): void {
    this.workflowLookup.provide(this.workflows);
    this.runExecutor.provide(this.executor);
    this.toolDependants.provide(this.workflows);
    const listeners: ToolVersionListener[] = [this.toolEmbeddings, this.toolUsage];
    this.toolVersionListener.provide({
      toolsChanged: async (changes) =>
        void (await Promise.all(listeners.map((listener) => listener.toolsChanged(changes)))),
    });
    this.workflowToolRunner.provide(this.toolRuns);
  }
}
