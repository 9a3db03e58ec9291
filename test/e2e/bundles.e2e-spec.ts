import request from 'supertest';
import { reply } from '../support/openai-test-server';
import { ADMIN_KEY, bearer, startTestApp, type TestApp } from '../support/test-app';
import { WorkflowApi, type RunBody } from '../support/workflow-api';
import { agentWorkflow, httpToolBody, llmEnv } from '../support/workflow-fixtures';
import { startWorkflowStack, type WorkflowStack } from '../support/workflow-stack';

interface BundleBody {
  format: string;
  format_version: number;
  tools: Array<Record<string, unknown> & { id: string; name: string; implementation_config: Record<string, unknown> }>;
  workflows: Array<{
    id: string;
    definition: { name: string } & Record<string, unknown>;
    is_public: boolean;
    enabled: boolean;
  }>;
}

interface ItemResult {
  index: number;
  name: string | null;
  status: string;
  id: string | null;
  original_name?: string;
  reason?: string;
  errors?: Array<{ field: string; message: string }>;
  warnings?: string[];
}

interface ImportBody {
  dry_run: boolean;
  tools: ItemResult[];
  workflows: ItemResult[];
}

const statuses = (items: ItemResult[]) => items.map((item) => [item.name, item.status]);

describe('Export and import (e2e)', () => {
  let stack: WorkflowStack;
  let fresh: TestApp;
  let alice: string;
  let bob: string;
  let aliceApi: WorkflowApi;
  let bundle: BundleBody;

  const exportAs = (app: TestApp, key: string, query = '') =>
    request(app.http).get(`/api/v1/export${query}`).set(bearer(key));
  const importAs = (app: TestApp, key: string, body: unknown, query = '') =>
    request(app.http)
      .post(`/api/v1/import${query}`)
      .set(bearer(key))
      .send(body as object);

  beforeAll(async () => {
    stack = await startWorkflowStack();
    fresh = await startTestApp(llmEnv(stack.llm));
    alice = await stack.app.createUserKey('alice');
    bob = await stack.app.createUserKey('bob');
    aliceApi = new WorkflowApi(stack.app.http, alice);

    const lookup = httpToolBody('lookup', `${stack.backend.origin}/lookup?id={id}`);
    const config = lookup.implementation_config as Record<string, unknown>;
    await aliceApi.createTool({
      ...lookup,
      implementation_config: { ...config, auth: { type: 'api_key_query', query_name: 'api_key', key: 'k-123' } },
    });
    const inner = await aliceApi
      .post('/workflows', { definition: agentWorkflow({ tools: ['lookup'] }, { name: 'inner' }) })
      .expect(201);
    await aliceApi.createTool({
      name: 'inner_tool',
      description: 'Runs inner',
      function_schema: { type: 'function', function: { name: 'inner_tool', description: 'Runs inner' } },
      implementation_type: 'workflow',
      implementation_config: { workflow_id: (inner.body as { id: string }).id },
      effect: 'read_only',
    });
    await aliceApi
      .post('/workflows', { definition: agentWorkflow({ tools: ['inner_tool'] }, { name: 'outer' }) })
      .expect(201);
    bundle = (await exportAs(stack.app, alice).expect(200)).body as BundleBody;
  });

  afterAll(async () => {
    await fresh?.close();
    await stack?.close();
  });

  it('should export what the caller may see, secrets masked as GET masks them, without the shipped builtins', async () => {
    expect(bundle).toMatchObject({ format: 'toolflow-bundle', format_version: 1 });
    expect(bundle.tools.map((tool) => tool.name)).toEqual(['inner_tool', 'lookup']);
    expect(bundle.workflows.map((workflow) => [workflow.definition.name, workflow.enabled])).toEqual([
      ['inner', true],
      ['outer', true],
    ]);
    const lookup = bundle.tools.find((tool) => tool.name === 'lookup');
    const shown = await aliceApi.get('/tools/lookup').expect(200);
    expect(lookup?.implementation_config).toEqual(
      (shown.body as { implementation_config: unknown }).implementation_config,
    );
    expect(lookup?.implementation_config.auth).toMatchObject({ key: '********' });

    const onlyOne = (await exportAs(stack.app, alice, '?workflows=inner').expect(200)).body as BundleBody;
    expect([onlyOne.tools.length, onlyOne.workflows.map((workflow) => workflow.definition.name)]).toEqual([
      0,
      ['inner'],
    ]);
    await exportAs(stack.app, bob, '?tools=lookup').expect(404);
    const bobs = (await exportAs(stack.app, bob).expect(200)).body as BundleBody;
    expect([bobs.tools, bobs.workflows]).toEqual([[], []]);
  });

  it('should import a bundle into another database, rewire the workflow tool, and run the imported workflows', async () => {
    const carol = await fresh.createUserKey('carol');
    const dryRun = (await importAs(fresh, carol, bundle, '?dry_run=true').expect(200)).body as ImportBody;
    expect(statuses(dryRun.tools)).toEqual([
      ['inner_tool', 'created'],
      ['lookup', 'created'],
    ]);
    expect((await exportAs(fresh, carol).expect(200)).body).toMatchObject({ tools: [], workflows: [] });

    const imported = (await importAs(fresh, carol, bundle).expect(200)).body as ImportBody;

    expect(statuses(imported.workflows)).toEqual([
      ['inner', 'created'],
      ['outer', 'created'],
    ]);
    const lookup = imported.tools.find((tool) => tool.name === 'lookup');
    expect(lookup?.warnings).toEqual([
      'implementation_config.auth came masked and is left unset: set it with PUT or PATCH',
    ]);
    const carolApi = new WorkflowApi(fresh.http, carol);
    const stored = (await carolApi.get('/tools/lookup').expect(200)).body as { implementation_config: object };
    expect(stored.implementation_config).not.toHaveProperty('auth');
    const innerTool = (await carolApi.get('/tools/inner_tool').expect(200)).body as {
      implementation_config: { workflow_id: string };
    };
    expect(innerTool.implementation_config.workflow_id).toBe(imported.workflows[0].id);

    stack.llm.reset();
    stack.backend.hits.length = 0;
    stack.llm.script([
      reply.toolCalls([{ name: 'inner_tool', arguments: { question: 'Inner?' } }]),
      reply.toolCalls([{ name: 'lookup', arguments: { id: 'x' } }]),
      reply.text('Inner answer.'),
      reply.text('Outer answer.'),
    ]);
    const run = (await carolApi.post('/workflows/outer/runs?wait=true', { inputs: { question: 'Go?' } }).expect(200))
      .body as RunBody;

    expect(run).toMatchObject({ status: 'succeeded', outputs: { answer: 'Outer answer.' } });
    expect(stack.backend.hits.map((hit) => hit.params)).toEqual([{ id: 'x' }]);
  });

  it('should skip, rename or replace what exists by the policy, keeping a stored secret on replace', async () => {
    const skipped = (await importAs(stack.app, alice, bundle).expect(200)).body as ImportBody;
    expect(statuses(skipped.tools)).toEqual([
      ['inner_tool', 'skipped'],
      ['lookup', 'skipped'],
    ]);
    expect(skipped.tools[1].id).toBe(bundle.tools[1].id);

    const renamed = (await importAs(stack.app, alice, bundle, '?on_conflict=rename').expect(200)).body as ImportBody;
    expect(statuses(renamed.tools)).toEqual([
      ['inner_tool_2', 'renamed'],
      ['lookup_2', 'renamed'],
    ]);
    expect(statuses(renamed.workflows)).toEqual([
      ['inner_2', 'renamed'],
      ['outer_2', 'renamed'],
    ]);
    const inner2 = (await aliceApi.get('/workflows/inner_2').expect(200)).body as {
      definition: { nodes: Array<{ data: { tools?: string[] } }> };
    };
    expect(inner2.definition.nodes[1].data.tools).toEqual(['lookup_2']);
    const innerTool2 = (await aliceApi.get('/tools/inner_tool_2').expect(200)).body as {
      implementation_config: { workflow_id: string };
    };
    expect(innerTool2.implementation_config.workflow_id).toBe(renamed.workflows[0].id);

    const replaced = (await importAs(stack.app, alice, bundle, '?on_conflict=replace').expect(200)).body as ImportBody;
    expect(statuses(replaced.tools)).toEqual([
      ['inner_tool', 'replaced'],
      ['lookup', 'replaced'],
    ]);
    const lookup = (await aliceApi.get('/tools/lookup').expect(200)).body as { id: string; version: number };
    expect(lookup.version).toBe(2);
    // One audit record per object an import created or changed, naming the importing key's user.
    const admin = new WorkflowApi(stack.app.http, ADMIN_KEY);
    type AuditBody = {
      items: Array<{ action: string; actor: { user_id: string }; object: { name: string }; after_version: number }>;
    };
    const audited = (path: string) => admin.get(path).expect(200) as Promise<{ body: AuditBody }>;
    const lookupRecords = (await audited(`/audit?object_type=tool&object_id=${lookup.id}`)).body.items;
    expect(lookupRecords[0]).toMatchObject({
      action: 'update',
      actor: { user_id: 'alice' },
      object: { name: 'lookup' },
      before_version: 1,
      after_version: 2,
    });
    const inner2Records = (await audited(`/audit?object_type=workflow&object_id=${renamed.workflows[0].id}`)).body
      .items;
    expect(inner2Records).toEqual([
      expect.objectContaining({ action: 'create', actor: expect.objectContaining({ user_id: 'alice' }) as object }),
    ]);
    stack.backend.hits.length = 0;
    await aliceApi.post('/tools/lookup/execute', { arguments: { id: 'y' } }).expect(200);
    expect(stack.backend.hits.map((hit) => hit.params)).toEqual([{ id: 'y', api_key: 'k-123' }]);
  });

  it('should refuse a bundle with an invalid item with 400 naming it, and store none of the valid ones', async () => {
    const dave = await stack.app.createUserKey('dave');
    const good = httpToolBody('good_one', `${stack.backend.origin}/good?id={id}`);
    const bad = { ...httpToolBody('bad', `${stack.backend.origin}/bad`), name: 'bad name!' };
    const broken = {
      format: 'toolflow-bundle',
      format_version: 1,
      tools: [good, bad],
      workflows: [
        { id: 'w1', definition: agentWorkflow({ tools: ['nowhere'] }, { name: 'broken' }), is_public: false },
      ],
    };

    const refused = await importAs(stack.app, dave, broken).expect(400);

    const body = refused.body as { errors: Array<{ field: string; pointer?: string }> } & ImportBody;
    expect(body.errors.map((error) => [error.field, error.pointer])).toEqual([
      ['tools[1].name', '/tools/1'],
      ['workflows[0].definition.nodes[1](llm-1).data.tools', '/workflows/0'],
    ]);
    expect(statuses(body.tools)).toEqual([
      ['good_one', 'created'],
      ['bad name!', 'failed'],
    ]);
    const left = (await exportAs(stack.app, dave).expect(200)).body as BundleBody;
    expect([left.tools, left.workflows]).toEqual([[], []]);

    const wrongVersion = await importAs(stack.app, dave, { ...broken, format_version: 9 }).expect(400);
    expect((wrongVersion.body as { errors: Array<{ field: string }> }).errors.map((error) => error.field)).toEqual([
      'format_version',
    ]);
  });

  it('should import a workflow whose provider is not configured here with a warning, and refuse its runs saying why', async () => {
    const frank = await fresh.createUserKey('frank');
    const elsewhere = {
      format: 'toolflow-bundle',
      format_version: 1,
      tools: [httpToolBody('plain_tool', `${stack.backend.origin}/plain?id={id}`)],
      workflows: [
        { id: 'w1', definition: agentWorkflow({ provider: 'azure-prod' }, { name: 'elsewhere' }), is_public: false },
        { id: 'w2', definition: agentWorkflow({ tools: ['plain_tool'] }, { name: 'runs_here' }), is_public: false },
      ],
    };
    const problem = 'definition.nodes[1](llm-1).data.provider: unknown provider "azure-prod"; configured: openai';

    const imported = (await importAs(fresh, frank, elsewhere).expect(200)).body as ImportBody;

    expect(statuses(imported.workflows)).toEqual([
      ['elsewhere', 'created'],
      ['runs_here', 'created'],
    ]);
    // Beside what a save also warns of (agentWorkflow reads the deprecated `output`).
    const [warned, clean] = imported.workflows.map((workflow) => workflow.warnings ?? []);
    expect(warned).toContain(`${problem}; its runs are refused here until this is configured`);
    expect(clean.filter((warning) => warning.includes('provider'))).toEqual([]);
    const frankApi = new WorkflowApi(fresh.http, frank);
    const refused = await frankApi.post('/workflows/elsewhere/runs', { inputs: { question: 'Go?' } }).expect(400);
    const errors = (refused.body as { errors: Array<{ field: string; message: string }> }).errors;
    expect(errors.map((error) => `${error.field}: ${error.message}`)).toEqual([problem]);
    await frankApi.get('/tools/plain_tool').expect(200);
  });

  it('should refuse a public item from a user key like the create endpoint does', async () => {
    const erin = await stack.app.createUserKey('erin');
    const publicTool = { ...httpToolBody('shared_one', `${stack.backend.origin}/s?id={id}`), is_public: true };

    const refused = await importAs(stack.app, erin, {
      format: 'toolflow-bundle',
      format_version: 1,
      tools: [publicTool],
    });

    expect(refused.status).toBe(400);
    expect((refused.body as ImportBody).tools[0]).toMatchObject({
      status: 'failed',
      reason: expect.stringContaining('is_public') as unknown,
    });
    const admin = await importAs(stack.app, ADMIN_KEY, {
      format: 'toolflow-bundle',
      format_version: 1,
      tools: [publicTool],
    });
    expect(admin.status).toBe(200);
  });

  it('should store nothing when a write fails half-way through the import', async () => {
    const owner = await stack.app.createUserKey('frank');
    const taken = (
      await new WorkflowApi(stack.app.http, owner).createTool(
        httpToolBody('clash', `${stack.backend.origin}/c?id={id}`),
      )
    ).body as { id: string };
    await request(stack.app.http)
      .patch(`/api/v1/tools/${taken.id}`)
      .set(bearer(ADMIN_KEY))
      .send({ is_public: true })
      .expect(200);
    const admin = new WorkflowApi(stack.app.http, ADMIN_KEY);
    await admin.createTool(httpToolBody('clash', `${stack.backend.origin}/mine?id={id}`));
    const tools = [
      httpToolBody('first_new', `${stack.backend.origin}/n?id={id}`),
      // Replaces the admin's own private "clash" and makes it public: the public name is frank's.
      { ...httpToolBody('clash', `${stack.backend.origin}/mine?id={id}`), is_public: true },
    ];

    const refused = await importAs(
      stack.app,
      ADMIN_KEY,
      { format: 'toolflow-bundle', format_version: 1, tools },
      '?on_conflict=replace',
    );

    expect(refused.status).toBe(409);
    await admin.get('/tools/first_new').expect(404);
    const own = (await admin.get('/tools?q=clash').expect(200)).body as {
      items: Array<{ version: number; is_public: boolean; user_id: string }>;
    };
    expect(own.items.map((tool) => [tool.user_id === 'frank', tool.is_public, tool.version]).sort()).toEqual([
      [false, false, 1],
      [true, true, 2],
    ]);
  });
});
