import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { PriceTable } from '../llm/model-prices';
import { ProviderRegistry } from '../llm/provider-registry';
import type { ModelCallRecord } from '../llm/observed-provider';
import type { CodeSandbox } from '../executors/code/sandbox';
import { CODE_SANDBOX } from '../executors/executors.tokens';
import type { ToolCallRecord } from '../call-logs/call-record';
import { ToolCallLogsService } from '../call-logs/tool-call-logs.service';
import { RunEventsService } from '../runs/run-events.service';
import { RUN_SUPERVISOR, type RunSupervisor } from '../runs/run-supervisor';
import { RunMetrics } from './run-metrics';

const RUN_BUCKETS = [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];
const MODEL_CALL_BUCKETS = [0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120];
const TOOL_CALL_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * The Prometheus metrics of this process, in a registry of its own (tests boot several apps in one
 * process). Lower modules report through the observer ports they declare; gauges are read at scrape.
 */
@Injectable()
export class MetricsService implements OnModuleInit, OnModuleDestroy {
  readonly registry = new Registry();
  private readonly detach: Array<() => void> = [];
  private readonly runs: RunMetrics;
  private readonly llmCalls: Counter<'provider' | 'model' | 'outcome'>;
  private readonly llmTokens: Counter<'provider' | 'model' | 'type'>;
  private readonly llmDuration: Histogram<'provider' | 'model' | 'outcome'>;
  private readonly llmCost: Counter<'provider' | 'model' | 'currency'>;
  private readonly llmUnpriced: Counter<'provider' | 'model'>;
  private readonly toolCalls: Counter<'tool' | 'status'>;
  private readonly toolDuration: Histogram<'tool' | 'status'>;

  constructor(
    private readonly providers: ProviderRegistry,
    private readonly prices: PriceTable,
    private readonly runEvents: RunEventsService,
    private readonly toolCallLogs: ToolCallLogsService,
    @Inject(RUN_SUPERVISOR) supervisor: RunSupervisor,
    @Inject(CODE_SANDBOX) sandbox: CodeSandbox,
  ) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    this.runs = new RunMetrics({
      runsFinished: new Counter({
        name: 'toolflow_runs_finished_total',
        help: 'Runs that ended, by final status',
        labelNames: ['status'],
        registers,
      }),
      runDuration: new Histogram({
        name: 'toolflow_run_duration_seconds',
        help: 'Run duration from start to end (queue time excluded), by final status',
        labelNames: ['status'],
        buckets: RUN_BUCKETS,
        registers,
      }),
      nodeDuration: new Histogram({
        name: 'toolflow_node_duration_seconds',
        help: 'Node run duration, by node type and status',
        labelNames: ['node_type', 'status'],
        buckets: RUN_BUCKETS,
        registers,
      }),
    });
    new Gauge({
      name: 'toolflow_runs_queued',
      help: 'Runs waiting for a run slot in this process',
      registers,
      collect() {
        this.set(supervisor.load().queued);
      },
    });
    new Gauge({
      name: 'toolflow_runs_running',
      help: 'Runs holding a run slot in this process',
      registers,
      collect() {
        this.set(supervisor.load().running);
      },
    });
    this.llmCalls = new Counter({
      name: 'toolflow_llm_calls_total',
      help: 'Model calls (retries inside one call included in it), by provider, model and outcome',
      labelNames: ['provider', 'model', 'outcome'],
      registers,
    });
    this.llmTokens = new Counter({
      name: 'toolflow_llm_tokens_total',
      help: 'Tokens the providers reported, by provider, model and type (prompt, completion)',
      labelNames: ['provider', 'model', 'type'],
      registers,
    });
    this.llmDuration = new Histogram({
      name: 'toolflow_llm_call_duration_seconds',
      help: 'Model call latency, by provider, model and outcome',
      labelNames: ['provider', 'model', 'outcome'],
      buckets: MODEL_CALL_BUCKETS,
      registers,
    });
    this.llmCost = new Counter({
      name: 'toolflow_llm_cost_total',
      help: 'What model calls cost (GET /providers has the prices), by provider, model and currency',
      labelNames: ['provider', 'model', 'currency'],
      registers,
    });
    this.llmUnpriced = new Counter({
      name: 'toolflow_llm_unpriced_calls_total',
      help: 'Model calls whose model has no known price (their cost is unknown), by provider and model',
      labelNames: ['provider', 'model'],
      registers,
    });
    this.toolCalls = new Counter({
      name: 'toolflow_tool_calls_total',
      help: 'Tool calls executed (in runs and on the debug endpoint), by tool name and status',
      labelNames: ['tool', 'status'],
      registers,
    });
    this.toolDuration = new Histogram({
      name: 'toolflow_tool_call_duration_seconds',
      help: 'Tool call duration, by tool name and status',
      labelNames: ['tool', 'status'],
      buckets: TOOL_CALL_BUCKETS,
      registers,
    });
    const sandboxGauge = (name: string, help: string, pick: (usage: CodeSandbox['usage']) => number) =>
      new Gauge({
        name,
        help,
        registers,
        collect() {
          this.set(pick(sandbox.usage));
        },
      });
    sandboxGauge('toolflow_code_sandbox_busy', 'Code tool calls holding a sandbox isolate', (usage) => usage.running);
    sandboxGauge(
      'toolflow_code_sandbox_queued',
      'Code tool calls waiting for a sandbox slot',
      (usage) => usage.waiting,
    );
    sandboxGauge(
      'toolflow_code_sandbox_capacity',
      'Code tool calls the sandbox runs at once',
      (usage) => usage.capacity,
    );
  }

  onModuleInit(): void {
    this.detach.push(
      this.runEvents.observe((runId, event) => this.runs.observe(runId, event)),
      this.providers.observe((call) => this.onModelCall(call)),
      this.toolCallLogs.observe((call) => this.onToolCall(call)),
    );
  }

  onModuleDestroy(): void {
    this.detach.splice(0).forEach((detach) => detach());
  }

  /** The text exposition of every metric. */
  render(): Promise<string> {
    return this.registry.metrics();
  }

  private onModelCall({ provider, model, outcome, durationMs, usage }: ModelCallRecord): void {
    this.llmCalls.inc({ provider, model, outcome });
    this.llmDuration.observe({ provider, model, outcome }, durationMs / 1000);
    if (usage) {
      this.llmTokens.inc({ provider, model, type: 'prompt' }, usage.promptTokens);
      this.llmTokens.inc({ provider, model, type: 'completion' }, usage.completionTokens);
      const cost = this.prices.costOf(provider, model, usage);
      if (cost === null) this.llmUnpriced.inc({ provider, model });
      else this.llmCost.inc({ provider, model, currency: cost.currency }, cost.amount);
    }
  }

  private onToolCall({ toolName, status, durationMs }: ToolCallRecord): void {
    this.toolCalls.inc({ tool: toolName, status });
    this.toolDuration.observe({ tool: toolName, status }, durationMs / 1000);
  }
}
