import type { AgentLoopHooks } from './agent-loop-options';
import { forwardStreamEvents } from './stream-event-forwarder';

describe(forwardStreamEvents.name, () => {
  const setup = () => {
    const seen: unknown[] = [];
    const hooks: AgentLoopHooks = {
      onText: (delta) => seen.push(['text', delta]),
      onReasoning: (delta) => seen.push(['reasoning', delta]),
      onToolCall: (event) => seen.push(['tool-call', event]),
      onToolParam: (event) => seen.push(['tool-param', event]),
      onRetry: (event) => seen.push(['retry', event]),
    };
    return { seen, sut: forwardStreamEvents(hooks) };
  };

  it('should forward text and reasoning deltas', () => {
    const { seen, sut } = setup();
    sut({ type: 'reasoning-delta', delta: 'think' });
    sut({ type: 'text-delta', delta: 'Hi' });
    expect(seen).toEqual([
      ['reasoning', 'think'],
      ['text', 'Hi'],
    ]);
  });

  it('should name the tool on argument deltas from the call start with the same index', () => {
    const { seen, sut } = setup();
    sut({ type: 'tool-call-start', index: 0, id: 'c1', name: 'search' });
    sut({ type: 'tool-args-delta', index: 0, id: 'c1', delta: '{"q":' });
    expect(seen).toEqual([
      ['tool-call', { id: 'c1', name: 'search', index: 0 }],
      ['tool-param', { id: 'c1', name: 'search', argsDelta: '{"q":' }],
    ]);
  });

  it('should forward retries', () => {
    const { seen, sut } = setup();
    sut({ type: 'retry', attempt: 2, delayMs: 500, reason: '429' });
    expect(seen).toEqual([['retry', { attempt: 2, delayMs: 500, reason: '429' }]]);
  });

  it('should ignore events without a hook', () => {
    const sut = forwardStreamEvents({});
    expect(() => sut({ type: 'text-delta', delta: 'x' })).not.toThrow();
  });
});
