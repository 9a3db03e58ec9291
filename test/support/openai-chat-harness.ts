import { OpenAIChatProvider } from '../../src/llm/openai-chat.provider';
import { OpenAITestServer } from './openai-test-server';
import { providerSpecHarness } from './provider-spec-harness';

/** The harness of the OpenAI Chat provider's specs (one file per concern); call it at the top of the `describe`. */
export const openAIChatHarness = () =>
  providerSpecHarness({
    start: () => OpenAITestServer.start(),
    create: (options) => new OpenAIChatProvider(options),
    name: 'test',
    apiKey: 'sk-test',
    model: 'test-model',
  });
