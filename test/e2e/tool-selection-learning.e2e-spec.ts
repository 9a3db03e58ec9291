import { DataSource } from 'typeorm';
import { ToolUsageTermEntity } from '../../src/workflow/tool-selection/tool-usage-term.entity';
import { ToolUsageService } from '../../src/workflow/tool-selection/tool-usage.service';
import { OpenAITestServer, reply } from '../support/openai-test-server';
import { ADMIN_KEY, startTestApp, throwawayDatabase, type TestApp } from '../support/test-app';
import { WorkflowApi } from '../support/workflow-api';
import { agentWorkflow, llmEnv } from '../support/workflow-fixtures';

type Body = { tools?: Array<{ function: { name: string } }> };

const TOOLS = [
  ['send_email', 'Sends an email message to a recipient'],
  ['weather_forecast', 'Weather forecast for a city'],
  ['create_invoice', 'Creates an invoice for a customer'],
  ['stock_quote', 'Latest price of a stock'],
] as const;
const LEARNED_TASK = 'Do the monthly paperwork of Acme';
// Shares no word with create_invoice's description, one with send_email's.
const LATER_TASK = 'Monthly paperwork of Initech, send it';

/**
 * Learning from use across processes on one database: what a run taught tool selection in one app is
 * stored, and a restarted app ranks with it; nothing else is learned, and with the switch off nothing is written.
 */
describe('Tool selection learning from use, stored (e2e)', () => {
  let database: { url: string; drop: () => Promise<void> };
  let llm: OpenAITestServer;
  let app: TestApp | undefined;
  const toolIds = new Map<string, string>();

  const start = async (learning: boolean) => {
    await app?.close();
    app = await startTestApp(llmEnv(llm, { TOOL_SELECTION_LEARNING: String(learning) }), {
      databaseUrl: database.url,
    });
    return app;
  };
  const apiOf = async (sut: TestApp, userId: string) => new WorkflowApi(sut.http, await sut.createUserKey(userId));
  const stored = (sut: TestApp) =>
    sut.app
      .get(DataSource)
      .getRepository(ToolUsageTermEntity)
      .find({ order: { ownerId: 'ASC', term: 'ASC' } });
  const offered = () =>
    llm.requests
      .filter((request) => request.path.endsWith('/chat/completions'))
      .map((request) => ((request.body as Body).tools ?? []).map((tool) => tool.function.name));
  const selecting = (always: string[] = []) =>
    agentWorkflow({ tools: TOOLS.map(([name]) => name), tool_selection: { max_tools: 1 + always.length, always } });
  /** A run whose model calls create_invoice, which `always` offers it. */
  const learnRun = async (api: WorkflowApi) => {
    llm.script([reply.toolCalls([{ name: 'create_invoice', arguments: {} }]), reply.text('Done.')]);
    const run = await api.run(selecting(['create_invoice']), { question: LEARNED_TASK });
    expect(run.status).toBe('succeeded');
  };
  /** The tools offered to the model on the first call of a run of LATER_TASK. */
  const firstOffer = async (api: WorkflowApi) => {
    llm.reset();
    llm.script([reply.text('Noted.')]);
    const run = await api.run(selecting(), { question: LATER_TASK });
    expect(run.status).toBe('succeeded');
    return offered()[0].filter((name) => name !== 'search_tools');
  };
  const createTools = async (api: WorkflowApi, owner: string) => {
    for (const [name, description] of TOOLS) {
      const response = await api.createTool({
        name,
        description,
        effect: 'read_only',
        function_schema: { name, description, parameters: { type: 'object', properties: {} } },
        implementation_type: 'code',
        implementation_config: { language: 'javascript', code: 'return { ok: true };' },
      });
      toolIds.set(`${owner}/${name}`, (response.body as { id: string }).id);
    }
  };

  beforeAll(async () => {
    database = await throwawayDatabase();
    llm = await OpenAITestServer.start();
  });

  afterEach(() => llm.reset());

  afterAll(async () => {
    await app?.close();
    await llm?.close();
    await database?.drop();
  });

  it('should write nothing with TOOL_SELECTION_LEARNING=false', async () => {
    const sut = await start(false);
    const learner = await apiOf(sut, 'learner');
    await createTools(learner, 'learner');
    await createTools(await apiOf(sut, 'other'), 'other');

    await learnRun(learner);

    expect(await firstOffer(learner)).not.toContain('create_invoice');
    expect(await stored(sut)).toEqual([]);
  });

  it('should store the terms of a called tool, for its owner and under its id, and nothing for tools not called', async () => {
    const sut = await start(true);
    const learner = await apiOf(sut, 'learner');
    expect(await firstOffer(learner)).toEqual(['send_email']);

    await learnRun(learner);
    await start(true); // a restart: the first app writes what it learned before it stops

    const rows = await stored(app!);
    expect([...new Set(rows.map((row) => `${row.ownerId} ${row.toolKey}`))]).toEqual([
      `learner ${toolIds.get('learner/create_invoice')}`,
    ]);
    expect(rows.map((row) => row.term)).toEqual(['acme', 'monthly', 'paperwork']);
  });

  it('should rank the learned tool first after the restart, for its owner only', async () => {
    const sut = app!;

    const learnerOffer = await firstOffer(await apiOf(sut, 'learner'));
    const otherOffer = await firstOffer(await apiOf(sut, 'other'));

    expect(learnerOffer).toEqual(['create_invoice']);
    expect(otherOffer).toEqual(['send_email']);
  });

  it("should forget a deleted tool's evidence", async () => {
    const sut = app!;
    const learner = await apiOf(sut, 'learner');

    await learner.delete(`/tools/${toolIds.get('learner/create_invoice')}`).expect(204);

    expect(await stored(sut)).toEqual([]);
  });

  it("should forget an owner's evidence when the owner's last API key is revoked", async () => {
    const sut = app!;
    await learnRun(await apiOf(sut, 'other'));
    await sut.app.get(ToolUsageService).flush();
    expect((await stored(sut)).map((row) => row.ownerId)).toContain('other');
    const admin = new WorkflowApi(sut.http, ADMIN_KEY);
    const keys = (await admin.get('/api-keys?page_size=100').expect(200)).body as {
      items: Array<{ id: string; user_id: string; revoked_at: string | null }>;
    };

    for (const key of keys.items.filter((item) => item.user_id === 'other' && item.revoked_at === null))
      await admin.delete(`/api-keys/${key.id}`).expect(204);

    expect(await stored(sut)).toEqual([]);
  });
});
