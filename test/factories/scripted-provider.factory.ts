import type { ChatProvider, ChatRequest, ChatResponse } from '../../src/llm/provider';
import { chatResponse } from './chat-response.factory';

/** A provider that answers from a list of responses and keeps a copy of every request. */
export const scriptedProvider = (script: Array<Partial<ChatResponse>>) => {
  const requests: ChatRequest[] = [];
  const provider: ChatProvider = {
    name: 'scripted',
    chat(request) {
      requests.push(structuredClone(request));
      const next = script.shift();
      return next === undefined ? Promise.reject(new Error('script exhausted')) : Promise.resolve(chatResponse(next));
    },
  };
  return { provider, requests };
};
