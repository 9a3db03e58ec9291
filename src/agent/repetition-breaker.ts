import { createHash } from 'node:crypto';
import type { ToolCall } from '../shared/tool-types';
import { canonicalArguments } from './canonical-json';

/** `warn`: tell the model it is repeating itself; `stop`: it kept going, end the tool phase. */
export type RepetitionVerdict = 'ok' | 'warn' | 'stop';

/** What a RepetitionBreaker remembers, for a loop checkpoint. */
export interface RepetitionState {
  /** A digest of the last call's name and canonical arguments: a checkpoint stores no argument in clear. */
  lastKey: string | null;
  count: number;
}

/** Counts identical calls (same name, same canonical arguments) in a row across the whole loop. */
export class RepetitionBreaker {
  private lastKey: string | null = null;
  private count = 0;

  constructor(
    private readonly limit: number,
    state?: RepetitionState,
  ) {
    if (state) ({ lastKey: this.lastKey, count: this.count } = state);
  }

  get state(): RepetitionState {
    return { lastKey: this.lastKey, count: this.count };
  }

  observe(call: ToolCall): RepetitionVerdict {
    const key = createHash('sha256')
      .update(`${call.name}\u0000${canonicalArguments(call.arguments)}`)
      .digest('base64url');
    this.count = key === this.lastKey ? this.count + 1 : 1;
    this.lastKey = key;
    if (this.count > this.limit) return 'stop';
    return this.count === this.limit ? 'warn' : 'ok';
  }
}

export const repetitionNote = (name: string, times: number): string =>
  `\n\n[Note: you have called ${name} with the same arguments ${times} times in a row. ` +
  'Do not repeat it: use the results you already have or change the arguments.]';
