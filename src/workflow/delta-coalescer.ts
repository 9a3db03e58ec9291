import type { RunEventType } from '../runs/run-event-types';

type Emit = (type: RunEventType, data: Record<string, unknown>) => void;

/** Streamed pieces whose events may be joined: the text, the reasoning and each tool call's arguments. */
const JOINABLE: ReadonlySet<RunEventType> = new Set(['llm.delta', 'llm.reasoning', 'tool.args.delta']);

/** One stream: its kind, node and call (parallel calls' argument deltas may come interleaved). */
const streamKey = (type: RunEventType, data: Record<string, unknown>): string =>
  `${type}\u0000${String(data.node_id)}\u0000${String(data.call_id)}`;

export interface DeltaCoalescer {
  emit: Emit;
  /** Emits the deltas held back, if any; call before emitting around the coalescer and when the run stops. */
  flush(): void;
}

/**
 * Joins the streamed deltas of each stream that come within `windowMs` into one event, whose `delta` is their
 * concatenation. A model streams a tool call's arguments a few characters at a time (parallel calls' pieces may
 * alternate), and every event is a stored row: joined, a call's arguments are a row or two instead of one per
 * token, while a live viewer still sees them grow several times a second. Any other event first emits what is
 * held back, in the order the streams began, so every stream's deltas stay in order and before what follows them.
 */
export function coalesceDeltas(emit: Emit, windowMs: number): DeltaCoalescer {
  const held = new Map<string, { type: RunEventType; data: Record<string, unknown>; delta: string }>();
  let timer: NodeJS.Timeout | null = null;
  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    const streams = [...held.values()];
    held.clear();
    for (const { type, data, delta } of streams) emit(type, { ...data, delta });
  };
  return {
    flush,
    emit: (type, data) => {
      if (!JOINABLE.has(type) || typeof data.delta !== 'string') {
        flush();
        emit(type, data);
        return;
      }
      const key = streamKey(type, data);
      const stream = held.get(key);
      if (stream) {
        stream.delta += data.delta;
        return;
      }
      held.set(key, { type, data, delta: data.delta });
      if (!timer) {
        timer = setTimeout(flush, windowMs);
        timer.unref();
      }
    },
  };
}
