import { OpenAITestServer } from './openai-test-server';
import { startTestApp, type TestApp } from './test-app';
import { startToolBackend, type ToolBackend } from './tool-backend';
import { llmEnv } from './workflow-fixtures';

/** The app wired to a scripted model server, plus a local HTTP backend for tools. */
export interface WorkflowStack {
  app: TestApp;
  llm: OpenAITestServer;
  backend: ToolBackend;
  close(): Promise<void>;
}

/** `env` adds variables to the app's environment; it gets the model server, e.g. to name more providers on it. */
export async function startWorkflowStack(
  env: (llm: OpenAITestServer) => Record<string, string> = () => ({}),
): Promise<WorkflowStack> {
  const llm = await OpenAITestServer.start();
  const backend = await startToolBackend();
  const app = await startTestApp(llmEnv(llm, env(llm)));
  return {
    app,
    llm,
    backend,
    async close() {
      await app.close();
      await llm.close();
      await backend.close();
    },
  };
}
