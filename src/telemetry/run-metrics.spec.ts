import { Counter, Histogram, Registry } from 'prom-client';
import type { RunEvent, RunEventType } from '../runs/run-event-types';
import { RunMetrics } from './run-metrics';

const event = (type: RunEventType, data: Record<string, unknown> = {}): RunEvent => ({
  seq: 1,
  type,
  data,
  at: new Date(0).toISOString(),
});

const metrics = (maxTimedRuns?: number) => {
  const registers = [new Registry()];
  const sinks = {
    runsFinished: new Counter({ name: 'runs_finished', help: 'h', labelNames: ['status'] as const, registers }),
    runDuration: new Histogram({ name: 'run_duration', help: 'h', labelNames: ['status'] as const, registers }),
    nodeDuration: new Histogram({
      name: 'node_duration',
      help: 'h',
      labelNames: ['node_type', 'status'] as const,
      registers,
    }),
  };
  return { sut: new RunMetrics(sinks, maxTimedRuns), sinks };
};

describe(RunMetrics.name, () => {
  it('should forget a run once it finished', async () => {
    const { sut, sinks } = metrics();
    sut.observe('run-1', event('run.started'));
    sut.observe('run-1', event('node.started', { node_id: 'agent', node_type: 'llm' }));
    sut.observe('run-1', event('node.finished', { node_id: 'agent', status: 'succeeded', duration_ms: 5 }));
    expect(sut.timedRuns).toBe(1);

    sut.observe('run-1', event('run.finished', { status: 'succeeded' }));

    expect(sut.timedRuns).toBe(0);
    expect((await sinks.runsFinished.get()).values).toEqual([{ labels: { status: 'succeeded' }, value: 1 }]);
    const nodes = (await sinks.nodeDuration.get()).values.find((value) => value.metricName === 'node_duration_count');
    expect(nodes?.labels).toEqual({ node_type: 'llm', status: 'succeeded' });
  });

  it('should hold at most its bound of runs that never finish here', () => {
    const { sut } = metrics(3);

    for (let index = 0; index < 10; index++) sut.observe(`run-${index}`, event('run.started'));

    expect(sut.timedRuns).toBe(3);
  });

  it('should still time a run that started among the most recent ones', async () => {
    const { sut, sinks } = metrics(2);
    sut.observe('old', event('run.started'));
    sut.observe('run-1', event('run.started'));
    sut.observe('run-2', event('run.started'));

    sut.observe('run-2', { ...event('run.finished', { status: 'failed' }), at: new Date(2000).toISOString() });

    const durations = (await sinks.runDuration.get()).values;
    expect(durations.find((value) => value.metricName === 'run_duration_sum')?.value).toBe(2);
  });
});
