import type { Counter, Histogram } from 'prom-client';
import type { RunEvent, RunEventType } from '../runs/run-event-types';
import { LruCache } from '../shared/lru-cache';

interface RunTiming {
  startedAt: number | null;
  nodeTypes: Map<string, string>;
}

export interface RunMetricSinks {
  runsFinished: Counter<'status'>;
  runDuration: Histogram<'status'>;
  nodeDuration: Histogram<'node_type' | 'status'>;
}

const text = (value: unknown): string => (typeof value === 'string' ? value : 'unknown');

/**
 * Runs whose timing is kept at once. A run that stops here without `run.finished` (in queue mode: it waits for a
 * person and resumes on another process, or another worker took it over) is forgotten only when newer runs push it
 * out: without a bound, each such run would stay for the life of the process. A few hundred bytes each.
 */
export const MAX_TIMED_RUNS = 10_000;

/**
 * Turns the run event stream into run and node metrics. A run's state lives here from its first
 * event to `run.finished` (at most MAX_TIMED_RUNS at once); node types come from `node.started`
 * (`node.finished` does not repeat them).
 */
export class RunMetrics {
  private readonly runs: LruCache<string, RunTiming>;

  /** The events that move a metric; the others (deltas, tool call events) pass by. */
  private readonly handlers: Partial<Record<RunEventType, (runId: string, event: RunEvent) => void>> = {
    'run.started': (runId, event) => {
      this.timing(runId).startedAt = Date.parse(event.at);
    },
    'node.started': (runId, event) => {
      this.timing(runId).nodeTypes.set(text(event.data.node_id), text(event.data.node_type));
    },
    'node.finished': (runId, event) => {
      const nodeType = this.runs.get(runId)?.nodeTypes.get(text(event.data.node_id)) ?? 'unknown';
      const duration = event.data.duration_ms;
      if (typeof duration === 'number') {
        this.sinks.nodeDuration.observe({ node_type: nodeType, status: text(event.data.status) }, duration / 1000);
      }
    },
    'run.finished': (runId, event) => {
      const status = text(event.data.status);
      const startedAt = this.runs.get(runId)?.startedAt ?? null;
      this.runs.delete(runId);
      this.sinks.runsFinished.inc({ status });
      if (startedAt !== null) this.sinks.runDuration.observe({ status }, (Date.parse(event.at) - startedAt) / 1000);
    },
  };

  constructor(
    private readonly sinks: RunMetricSinks,
    maxTimedRuns = MAX_TIMED_RUNS,
  ) {
    this.runs = new LruCache(maxTimedRuns);
  }

  /** How many runs' timing is held (started, not yet finished here). */
  get timedRuns(): number {
    return this.runs.size;
  }

  observe(runId: string, event: RunEvent): void {
    this.handlers[event.type]?.(runId, event);
  }

  private timing(runId: string): RunTiming {
    let timing = this.runs.get(runId);
    if (!timing) {
      timing = { startedAt: null, nodeTypes: new Map() };
      this.runs.set(runId, timing);
    }
    return timing;
  }
}
