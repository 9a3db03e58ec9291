import { getEventListeners, getMaxListeners } from 'node:events';

/**
 * Runs `work` and counts the abort listeners added meanwhile that are still registered on a signal that
 * can still abort: each one keeps its closure alive as long as that signal lives (for a composite signal
 * of `AbortSignal.any`, forever).
 */
export async function abortListenersLeftBy(work: () => Promise<void>): Promise<number> {
  const added: Array<{ signal: AbortSignal; listener: unknown }> = [];
  const original = EventTarget.prototype.addEventListener;
  const spy = jest.spyOn(EventTarget.prototype, 'addEventListener').mockImplementation(function (
    this: EventTarget,
    ...args: Parameters<EventTarget['addEventListener']>
  ) {
    if (this instanceof AbortSignal && args[0] === 'abort') added.push({ signal: this, listener: args[1] });
    original.apply(this, args);
  });
  try {
    await work();
  } finally {
    spy.mockRestore();
  }
  return added.filter(
    ({ signal, listener }) => !signal.aborted && getEventListeners(signal, 'abort').includes(listener as never),
  ).length;
}

/**
 * Runs `work` and returns how many times an abort listener was added to a signal that then held more
 * listeners than its limit (`events.getMaxListeners`): each is a `MaxListenersExceededWarning` in Node.
 */
export async function abortListenerLimitsExceededBy(work: () => Promise<void>): Promise<number> {
  let exceeded = 0;
  const original = EventTarget.prototype.addEventListener;
  const spy = jest.spyOn(EventTarget.prototype, 'addEventListener').mockImplementation(function (
    this: EventTarget,
    ...args: Parameters<EventTarget['addEventListener']>
  ) {
    original.apply(this, args);
    if (!(this instanceof AbortSignal) || args[0] !== 'abort') return;
    const limit = getMaxListeners(this);
    if (getEventListeners(this, 'abort').length > limit) exceeded++;
  });
  try {
    await work();
  } finally {
    spy.mockRestore();
  }
  return exceeded;
}
