import { OpenAITestServer } from './openai-test-server';
import { ADMIN_KEY, startTestApp, type TestApp } from './test-app';
import { startToolBackend, type ToolBackend } from './tool-backend';
import { WorkflowApi } from './workflow-api';
import { httpToolBody, llmEnv } from './workflow-fixtures';

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

/** A WorkflowStack with an admin WorkflowApi on it and the `ping` HTTP tool (`{backend}/ping?id={id}`). */
export interface PingStack {
  readonly app: TestApp;
  readonly llm: OpenAITestServer;
  readonly backend: ToolBackend;
  readonly api: WorkflowApi;
}

/**
 * A PingStack for the tests of one `describe` (call it at its top): started before them, the model's script
 * reset after each, closed after all.
 */
export function pingStackFixture(): PingStack {
  let stack: WorkflowStack | undefined;
  let api: WorkflowApi | undefined;
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the ping stack starts in beforeAll');
    return value;
  };

  beforeAll(async () => {
    stack = await startWorkflowStack();
    api = new WorkflowApi(stack.app.http, ADMIN_KEY);
    await api.createTool(httpToolBody('ping', `${stack.backend.origin}/ping?id={id}`));
  });

  afterEach(() => stack?.llm.reset());

  afterAll(async () => {
    await stack?.close();
  });

  return {
    get app() {
      return started(stack).app;
    },
    get llm() {
      return started(stack).llm;
    },
    get backend() {
      return started(stack).backend;
    },
    get api() {
      return started(api);
    },
  };
}
