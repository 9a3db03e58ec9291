import type { AgentToolCallStatus } from '../shared/tool-call-status';

const VALID_CALL_STATUSES: ReadonlySet<AgentToolCallStatus> = new Set(['success', 'error', 'timeout', 'rejected']);

/** True when the model called the tool properly (its arguments passed validation), whatever the tool then did. */
export const isValidCallStatus = (status: AgentToolCallStatus): boolean => VALID_CALL_STATUSES.has(status);

/** What an InvalidCallTracker remembers, for a loop checkpoint. */
export interface InvalidCallState {
  streaks: Record<string, number>;
  disabled: string[];
}

/** Disables a tool once the model sent it `limit` calls with invalid arguments in a row. */
export class InvalidCallTracker {
  private readonly streaks: Map<string, number>;
  private readonly disabledNames: Set<string>;

  constructor(
    private readonly limit: number,
    state?: InvalidCallState,
  ) {
    this.streaks = new Map(Object.entries(state?.streaks ?? {}));
    this.disabledNames = new Set(state?.disabled ?? []);
  }

  get state(): InvalidCallState {
    return { streaks: Object.fromEntries(this.streaks), disabled: [...this.disabledNames] };
  }

  get disabled(): ReadonlySet<string> {
    return this.disabledNames;
  }

  isDisabled(name: string): boolean {
    return this.disabledNames.has(name);
  }

  /** Returns true when this call is the one that disables the tool. */
  record(name: string, status: AgentToolCallStatus): boolean {
    if (isValidCallStatus(status)) {
      this.streaks.delete(name);
      return false;
    }
    if (status !== 'invalid_arguments') return false;
    const streak = (this.streaks.get(name) ?? 0) + 1;
    this.streaks.set(name, streak);
    if (streak < this.limit || this.disabledNames.has(name)) return false;
    this.disabledNames.add(name);
    return true;
  }
}

export const disabledToolNote = (name: string, limit: number): string =>
  `\n\n[Note: ${name} received invalid arguments ${limit} times in a row and is now disabled for this step. ` +
  'Continue without it.]';

export const disabledToolResponse = (name: string): string =>
  `Not executed: ${name} is disabled for this step after repeated calls with invalid arguments. Continue without it.`;
