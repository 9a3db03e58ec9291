import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { PriceTable } from '../llm/model-prices';
import { ProviderRegistry } from '../llm/provider-registry';
import { RegistryModule } from '../registry/registry.module';
import { RegistryService } from '../registry/registry.service';
import { WORKFLOW_TOOL_RUNNER } from '../executors/workflow/workflow-tool-runner';
import { RunsModule } from '../runs/runs.module';
import { RunsService } from '../runs/runs.service';
import { RUN_EXECUTOR } from '../runs/run-supervisor';
import { ToolResultsService } from '../runs/tool-results.service';
import { ApprovalsService } from '../runs/approvals.service';
import { WORKFLOW_LOOKUP } from '../runs/workflow-lookup';
import { TOOL_DEPENDANTS } from '../tools/tool-dependants';
import { TOOL_VERSION_LISTENER } from '../tools/tool-version-listener';
import { WorkflowEngine } from './execution/engine';
import { NODE_HANDLERS } from './nodes/node-handlers';
import { WorkflowEntity } from './workflow.entity';
import { WorkflowVersionEntity } from './workflow-version.entity';
import { WorkflowVersionsService } from './workflow-versions.service';
import { ToolEmbeddingEntity } from './tool-selection/tool-embedding.entity';
import { ToolEmbeddingsService } from './tool-selection/tool-embeddings.service';
import { WORKFLOW_ENGINE, WorkflowRunner } from './workflow-runner.service';
import { WorkflowsController } from './workflows.controller';
import { WorkflowsService } from './workflows.service';

@Module({
  imports: [
    TypeOrmModule.forFeature([WorkflowEntity, WorkflowVersionEntity, ToolEmbeddingEntity]),
    RegistryModule,
    RunsModule,
  ],
  controllers: [WorkflowsController],
  exports: [WorkflowsService, WorkflowVersionsService, WorkflowRunner],
  providers: [
    WorkflowsService,
    WorkflowVersionsService,
    ToolEmbeddingsService,
    { provide: WORKFLOW_LOOKUP, useExisting: WorkflowsService },
    // Looked up by ToolsService (tools/) through ModuleRef: tools/ declares the port, workflow/ provides it.
    { provide: TOOL_DEPENDANTS, useExisting: WorkflowsService },
    { provide: TOOL_VERSION_LISTENER, useExisting: ToolEmbeddingsService },
    WorkflowRunner,
    { provide: WORKFLOW_TOOL_RUNNER, useExisting: WorkflowRunner },
    // Looked up by the run supervisor (runs/) through ModuleRef: runs/ declares the port, workflow/ provides it.
    { provide: RUN_EXECUTOR, useExisting: WorkflowRunner },
    {
      provide: WORKFLOW_ENGINE,
      inject: [
        RegistryService,
        ProviderRegistry,
        RunsService,
        ToolResultsService,
        ApprovalsService,
        ToolEmbeddingsService,
        APP_CONFIG,
        PriceTable,
      ],
      useFactory: (
        registry: RegistryService,
        providers: ProviderRegistry,
        runs: RunsService,
        toolResults: ToolResultsService,
        approvals: ApprovalsService,
        toolEmbeddings: ToolEmbeddingsService,
        config: AppConfig,
        prices: PriceTable,
      ) =>
        new WorkflowEngine(
          NODE_HANDLERS,
          {
            providers,
            prices,
            registry,
            defaultProvider: config.defaultProvider,
            defaultTimeoutMs: config.llmLimits.nodeTimeoutMs,
            toolResults: { maxTokens: config.llmLimits.maxToolResultTokens, store: toolResults },
            approvals,
            toolEmbeddings,
          },
          runs,
          config.workflows.maxParallelNodes,
        ),
    },
  ],
})
export class WorkflowModule {}
