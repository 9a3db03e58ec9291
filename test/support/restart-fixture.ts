import { OpenAITestServer } from './openai-test-server';
import { startTestApp, throwawayDatabase, type TestApp } from './test-app';
import { startToolBackend, type ToolBackend } from './tool-backend';
import { llmEnv } from './workflow-fixtures';

export interface RestartFixture {
  readonly llm: OpenAITestServer;
  readonly backend: ToolBackend;
  readonly databaseUrl: string;
  /** The process before the restart: its short shutdown grace hands its running runs back as it closes. */
  startFirst(): Promise<TestApp>;
  /** The process after the restart, on the same database; the fixture closes it. */
  startSecond(): Promise<TestApp>;
}

/**
 * Two app processes one after the other on one throwaway database, with the scripted model server and a tool
 * backend: for runs that must go on across a restart. Call it at the top of a `describe`.
 */
export function restartFixture(): RestartFixture {
  let llm: OpenAITestServer | undefined;
  let backend: ToolBackend | undefined;
  let database: { url: string; drop: () => Promise<void> } | undefined;
  let second: TestApp | undefined;
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the restart fixture starts in beforeAll');
    return value;
  };

  beforeAll(async () => {
    llm = await OpenAITestServer.start();
    backend = await startToolBackend();
    database = await throwawayDatabase();
  });

  afterAll(async () => {
    await second?.close();
    await llm?.close();
    await backend?.close();
    await database?.drop();
  });

  const fixture: RestartFixture = {
    get llm() {
      return started(llm);
    },
    get backend() {
      return started(backend);
    },
    get databaseUrl() {
      return started(database).url;
    },
    startFirst: () =>
      startTestApp(llmEnv(fixture.llm, { SHUTDOWN_GRACE_MS: '100' }), { databaseUrl: fixture.databaseUrl }),
    startSecond: async () => {
      second = await startTestApp(llmEnv(fixture.llm), { databaseUrl: fixture.databaseUrl });
      return second;
    },
  };
  return fixture;
}
