import type { ToolCall } from '../shared/tool-types';
import type { ChatStreamEvent, MalformedToolCall } from './provider';

/** One entry of `delta.tool_calls` as providers really send it: every field may be missing. */
export interface ToolCallDelta {
  index?: number;
  id?: string;
  type?: string;
  function?: { name?: string; arguments?: string };
}

export type ToolCallStreamEvent = Extract<ChatStreamEvent, { type: 'tool-call-start' | 'tool-args-delta' }>;

export interface ToolCallStreamResult {
  toolCalls: ToolCall[];
  malformedToolCalls: MalformedToolCall[];
}

interface PendingCall {
  /** Position in this response, in order of first appearance; what events carry as `index`. */
  ordinal: number;
  providerIndex: number;
  id: string;
  idGenerated: boolean;
  name: string;
  arguments: string;
  started: boolean;
}

/**
 * Assembles streamed tool-call deltas into whole calls.
 *
 * Events carry the call's position in the response (0, 1, … in order of first appearance), not the
 * provider's raw `index`, so an index starting at 1 or missing altogether looks the same downstream.
 * Names in events are as received; `repairToolCalls` may still clean them in the final response.
 */
export class ToolCallStream {
  private readonly calls: PendingCall[] = [];
  private readonly byProviderIndex = new Map<number, PendingCall>();

  /** @param firstGeneratedId number used for the first `call_<n>` id given to a call that has none. */
  constructor(private readonly firstGeneratedId = 0) {}

  push(delta: ToolCallDelta): ToolCallStreamEvent[] {
    const call = this.callFor(delta);
    const id = delta.id ?? '';
    if (id !== '' && call.id === '') call.id = id;
    const name = delta.function?.name ?? '';
    if (name !== '') call.name = name;
    const fragment = delta.function?.arguments ?? '';
    call.arguments += fragment;

    const events: ToolCallStreamEvent[] = [];
    if (!call.started && call.name !== '') {
      if (call.id === '') this.generateId(call);
      call.started = true;
      events.push({ type: 'tool-call-start', index: call.ordinal, id: call.id, name: call.name });
      if (call.arguments !== '') {
        events.push({ type: 'tool-args-delta', index: call.ordinal, id: call.id, delta: call.arguments });
      }
    } else if (call.started && fragment !== '') {
      events.push({ type: 'tool-args-delta', index: call.ordinal, id: call.id, delta: fragment });
    }
    return events;
  }

  /** The calls in order of appearance; a call that never got a name is malformed, not guessed. */
  finish(): ToolCallStreamResult {
    const result: ToolCallStreamResult = { toolCalls: [], malformedToolCalls: [] };
    for (const call of this.calls) {
      if (call.id === '') this.generateId(call);
      if (call.name === '') {
        result.malformedToolCalls.push({
          id: call.id,
          arguments: call.arguments,
          reason: 'the provider sent a tool call without a function name',
        });
      } else {
        result.toolCalls.push({ id: call.id, name: call.name, arguments: call.arguments });
      }
    }
    return result;
  }

  private callFor(delta: ToolCallDelta): PendingCall {
    const id = delta.id ?? '';
    if (typeof delta.index === 'number') {
      const existing = this.byProviderIndex.get(delta.index);
      // Some compatible servers reuse one index for parallel calls; a second distinct id means a new call.
      const reused =
        existing !== undefined && id !== '' && existing.id !== '' && !existing.idGenerated && existing.id !== id;
      if (existing !== undefined && !reused) return existing;
      return this.open(delta.index);
    }
    const last = this.calls.at(-1);
    if (last === undefined) return this.open(0);
    const startsNewCall = id !== '' && last.id !== '' && !last.idGenerated && last.id !== id;
    return startsNewCall ? this.open(last.providerIndex + 1) : last;
  }

  private open(providerIndex: number): PendingCall {
    const call: PendingCall = {
      ordinal: this.calls.length,
      providerIndex,
      id: '',
      idGenerated: false,
      name: '',
      arguments: '',
      started: false,
    };
    this.calls.push(call);
    this.byProviderIndex.set(providerIndex, call);
    return call;
  }

  private generateId(call: PendingCall): void {
    call.id = `call_${this.firstGeneratedId + call.ordinal}`;
    call.idGenerated = true;
  }
}
