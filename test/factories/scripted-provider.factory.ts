import type { ChatCallOptions, ChatProvider, ChatRequest, ChatResponse } from '../../src/llm/provider';
import { chatResponse } from './chat-response.factory';

/** One answer of a scripted provider: a response (completed by `chatResponse`), or a function that makes one. */
export type ScriptStep =
  Partial<ChatResponse> | ((request: ChatRequest, options?: ChatCallOptions) => Promise<ChatResponse>);

/** A provider that answers from a script, step by step, and keeps a copy of every request (also as `provider.requests`). */
export const scriptedProvider = (script: ScriptStep[]) => {
  const requests: ChatRequest[] = [];
  const provider: ChatProvider & { readonly requests: ChatRequest[] } = {
    name: 'scripted',
    requests,
    chat(request, options) {
      requests.push(structuredClone(request));
      const next = script.shift();
      if (next === undefined) return Promise.reject(new Error('script exhausted'));
      return typeof next === 'function' ? next(request, options) : Promise.resolve(chatResponse(next));
    },
  };
  return { provider, requests };
};
