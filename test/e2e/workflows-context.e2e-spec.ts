import { APIZOO_POOL, createPoolTools } from '../support/apizoo-pool';
import { type OpenAITestServer, reply } from '../support/openai-test-server';
import { readRunEvents } from '../support/sse';
import { ADMIN_KEY, type TestApp } from '../support/test-app';
import { startWorkflowStack, type WorkflowStack } from '../support/workflow-stack';
import { WorkflowApi } from '../support/workflow-api';
import { agentWorkflow, httpToolBody } from '../support/workflow-fixtures';
import { numberedLines } from '../support/tool-backend';
import { countTokens } from '../../src/llm/token-count';

const CUSTOMERS_CODE =
  'const rows = []; for (let i = 0; i < 60000; i++) rows.push({ id: i, name: "customer " + i, ' +
  'email: "c" + i + "@example.com", note: "n".repeat(20) }); return { total: rows.length, rows };';
const customersResult = () => {
  const rows = [];
  for (let i = 0; i < 60000; i++)
    rows.push({ id: i, name: `customer ${i}`, email: `c${i}@example.com`, note: 'n'.repeat(20) });
  return JSON.stringify({ total: rows.length, rows });
};

type Message = { role: string; tool_call_id?: string; content?: string | null };
type Body = { messages: Message[]; tools?: Array<{ function: { name: string } }> };

describe('LLM node context engineering (e2e)', () => {
  let stack: WorkflowStack | undefined;
  let app: TestApp;
  let llm: OpenAITestServer;
  let api: WorkflowApi;

  const bodies = () => llm.requests.map((recorded) => recorded.body as unknown as Body);
  const toolMessages = (body: Body) => body.messages.filter((message) => message.role === 'tool');

  beforeAll(async () => {
    stack = await startWorkflowStack(() => ({ CODE_MAX_OUTPUT_BYTES: '8mb', CODE_TIMEOUT_MS: '10000' }));
    ({ app, llm } = stack);
    api = new WorkflowApi(app.http, ADMIN_KEY);
    await api.createTool({
      name: 'read_chapter',
      description: 'Reads one chapter of the manual',
      effect: 'read_only',
      function_schema: {
        name: 'read_chapter',
        description: 'Reads one chapter of the manual',
        parameters: { type: 'object', properties: { chapter: { type: 'integer' } }, required: ['chapter'] },
      },
      implementation_type: 'code',
      implementation_config: {
        language: 'javascript',
        code:
          'const words = []; for (let i = 0; i < 400; i++) words.push("chapter" + args.chapter + "word" + i); ' +
          'return words.join(" ");',
      },
    });
  });

  afterEach(() => llm.reset());

  afterAll(async () => {
    await stack?.close();
  });

  describe('weaker models', () => {
    it('should run calls a weaker model wrote as text, suggest a misspelt name and keep prose as the answer', async () => {
      const answer = 'It is 15. Next time call it like {"name": "calculator", "arguments": {}}.';
      llm.script([
        reply.text('```json\n{"name": "calculator", "arguments": {"expression": "7 + 8"}}\n```'),
        reply.toolCalls([{ name: 'calculater', id: 'call_typo', arguments: { expression: '1' } }]),
        reply.toolCalls([{ name: 'calculator', id: 'call_kw', arguments: 'calculator(expression="6 * 7")' }]),
        reply.text(answer),
      ]);
      const run = await api.run(agentWorkflow({ tools: ['calculator'] }), { question: 'What is 7 + 8?' });

      expect(run).toMatchObject({ status: 'succeeded', outputs: { answer } });
      expect(toolMessages(bodies()[1])[0].content).toBe('7 + 8 = 15');
      expect(toolMessages(bodies()[2])[1].content).toContain('Did you mean "calculator"?');
      expect(toolMessages(bodies()[3])[2].content).toBe('6 * 7 = 42');
      const node = (await api.getRun(run.id)).nodes?.find((candidate) => candidate.node_id === 'llm-1');
      expect(node?.tool_calls.map((call) => call.status)).toEqual(['success', 'not_found', 'success']);
    });
  });

  describe('tool results', () => {
    beforeAll(async () => {
      await api.createTool({
        name: 'list_customers',
        description: 'Lists every customer',
        effect: 'read_only',
        function_schema: {
          name: 'list_customers',
          description: 'Lists every customer',
          parameters: { type: 'object', properties: {} },
        },
        implementation_type: 'code',
        implementation_config: { language: 'javascript', code: CUSTOMERS_CODE },
      });
    });

    it('should cut a 5 MB result for the model and let it read all of it through read_tool_result', async () => {
      const full = customersResult();
      const pageLength = 600_000;
      llm.script([
        reply.toolCalls([{ name: 'list_customers', id: 'call_list', arguments: {} }]),
        reply.from((request) => {
          const cut = toolMessages(request.body as unknown as Body)[0].content ?? '';
          const ref = /ref "([^"]+)"/.exec(cut)?.[1] ?? 'missing';
          const total = Number(/The full result \((\d+) characters/.exec(cut)?.[1]);
          const pages = Array.from({ length: Math.ceil(total / pageLength) }, (_, index) => ({
            name: 'read_tool_result',
            id: `call_page_${index}`,
            arguments: { ref, offset: index * pageLength, length: pageLength },
          }));
          return reply.toolCalls(pages, { whole: true });
        }),
        reply.text('There are 60000 customers.'),
      ]);
      const run = await api.run(
        agentWorkflow({ tools: ['list_customers'], max_tool_result_tokens: 250_000, context_window: 10_000_000 }),
      );

      const [, second, third] = bodies();
      const cut = toolMessages(second)[0].content ?? '';
      expect(cut).toContain(`The full result (${full.length} characters`);
      expect(run).toMatchObject({ status: 'succeeded', outputs: { answer: 'There are 60000 customers.' } });
      expect(full.length).toBeGreaterThan(5_000_000);
      expect(second.tools?.map((tool) => tool.function.name)).toEqual(['list_customers', 'read_tool_result']);
      expect(cut.length).toBeLessThan(200_000);
      expect(cut).toContain('$.rows kept');
      const pages = toolMessages(third)
        .slice(1)
        .map((message) => (message.content ?? '').replace(/\n\[characters \d+ to \d+ of \d+; [^\]]+\]$/, ''));
      expect(pages.join('')).toBe(full);
    }, 120_000);
  });

  describe('http tool results', () => {
    it('should store the whole of a 385 KB http response and let the model page past its first 16,000 characters', async () => {
      const full = numberedLines(37_000);
      await api.createTool({
        ...httpToolBody('long_text', `${stack?.backend.origin ?? ''}/text?lines=37000`, {
          parameters: { type: 'object', properties: {} },
        }),
        implementation_config: { url: `${stack?.backend.origin ?? ''}/text?lines=37000`, parse_mode: 'raw' },
      });
      const offset = full.indexOf('line 36990');
      llm.script([
        reply.toolCalls([{ name: 'long_text', id: 'call_text', arguments: {} }]),
        reply.from((request) => {
          const cut = toolMessages(request.body as unknown as Body)[0].content ?? '';
          const ref = /ref "([^"]+)"/.exec(cut)?.[1] ?? 'missing';
          return reply.toolCalls([{ name: 'read_tool_result', id: 'call_page', arguments: { ref, offset } }]);
        }),
        reply.text('The text ends at line 36999.'),
      ]);

      const run = await api.run(agentWorkflow({ tools: ['long_text'], max_tool_result_tokens: 2000 }));

      expect(full.length).toBeGreaterThan(385_000);
      expect(run).toMatchObject({ status: 'succeeded' });
      const cut = toolMessages(bodies()[1])[0].content ?? '';
      expect(cut).toContain(`The full result (${full.length} characters`);
      expect(cut).not.toContain('[truncated');
      const page = toolMessages(bodies()[2])[1].content ?? '';
      expect(page.startsWith(full.slice(offset, offset + 100))).toBe(true);
      expect(page).toContain('line 36999');
    });
  });

  describe('summarised results', () => {
    it('should give the model a summary by the named model instead of a cut, the whole readable by ref', async () => {
      const chapter = Array.from({ length: 400 }, (_, index) => `chapter3word${index}`).join(' ');
      llm.script([
        reply.toolCalls([{ name: 'read_chapter', id: 'call_read', arguments: { chapter: 3 } }]),
        reply.text('Chapter 3 lists the words chapter3word0 to chapter3word399.'),
        reply.from((request) => {
          const summary = toolMessages(request.body as unknown as Body)[0].content ?? '';
          const ref = /ref "([^"]+)"/.exec(summary)?.[1] ?? 'missing';
          return reply.toolCalls([{ name: 'read_tool_result', id: 'call_page', arguments: { ref } }]);
        }),
        reply.text('Chapter 3 has 400 words.'),
      ]);
      const run = await api.run(
        agentWorkflow({
          tools: ['read_chapter'],
          max_tool_result_tokens: 200,
          summarize_results: true,
          summarize_model: 'cheap-model',
        }),
        { question: 'How many words does chapter 3 have?' },
      );

      expect(run).toMatchObject({ status: 'succeeded', outputs: { answer: 'Chapter 3 has 400 words.' } });
      const [, summarising, afterSummary, afterPage] = llm.requests.map((recorded) => recorded.body);
      expect(summarising.model).toBe('cheap-model');
      expect(summarising.tools).toBeUndefined();
      const asked = JSON.stringify(summarising.messages);
      expect(asked).toContain('How many words does chapter 3 have?');
      expect(asked).toContain('chapter3word399');
      const summary = toolMessages(afterSummary as unknown as Body)[0].content ?? '';
      expect(summary).toMatch(
        /^Chapter 3 lists the words chapter3word0 to chapter3word399\.\n\[Tool result cut to fit 200 tokens: summarised by cheap-model\. The full result/,
      );
      expect((afterSummary as unknown as Body).tools?.map((tool) => tool.function.name)).toEqual([
        'read_chapter',
        'read_tool_result',
      ]);
      expect(toolMessages(afterPage as unknown as Body)[1].content).toContain(chapter.slice(0, 300));
      const node = (await api.getRun(run.id)).nodes?.find((candidate) => candidate.node_id === 'llm-1');
      expect(node?.output).toMatchObject({ usage: { model_calls: 3 } });
      // The summary's tokens count for the run as for the node: four requests of 15 tokens, three of them calls.
      const usage = { prompt_tokens: 40, completion_tokens: 20, total_tokens: 60, model_calls: 3 };
      // The test models have no price: the node says its cost is unknown, the run shows it apart from its usage.
      expect(node?.output?.usage).toEqual({ ...usage, cost: null });
      expect(run.usage).toEqual(usage);
    });
  });

  describe('conversation length', () => {
    const WINDOW = 4500;
    const MAX_TOKENS = 500;
    const ROUNDS = 10;
    /** What a request holds, counted like the node counts it (o200k_base), as JSON: a little more than the node. */
    const requestTokens = (body: Body) =>
      countTokens(JSON.stringify(body.messages)) + countTokens(JSON.stringify(body.tools ?? []));

    it('should keep every request of a long conversation within a small window, recording each trim', async () => {
      llm.script([
        ...Array.from({ length: ROUNDS }, (_, round) =>
          reply.toolCalls([{ name: 'read_chapter', id: `call_${round}`, arguments: { chapter: round } }]),
        ),
        reply.text('The manual has ten chapters.'),
      ]);
      const run = await api.run(
        agentWorkflow({
          system: 'You read manuals.',
          tools: ['read_chapter'],
          max_iterations: ROUNDS + 1,
          context_window: WINDOW,
          max_tokens: MAX_TOKENS,
        }),
        { question: 'How many chapters does the manual have?' },
      );

      expect(run).toMatchObject({ status: 'succeeded', outputs: { answer: 'The manual has ten chapters.' } });
      const sent = bodies();
      expect(sent).toHaveLength(ROUNDS + 1);
      for (const [index, body] of sent.entries()) {
        expect(requestTokens(body)).toBeLessThanOrEqual(WINDOW - MAX_TOKENS);
        expect(body.messages[0]).toEqual({ role: 'system', content: 'You read manuals.' });
        expect(body.messages[1].content).toContain('How many chapters does the manual have?');
        if (index === 0) continue;
        // The latest call and its whole result, as the model made and got them.
        const last = body.messages.at(-1);
        expect(last?.tool_call_id).toBe(`call_${index - 1}`);
        expect(last?.content).toMatch(new RegExp(`^"chapter${index - 1}word0 .* chapter${index - 1}word399"$`));
        // Every result answers a call sent in the same request.
        const calls = new Set(
          body.messages.flatMap((message) =>
            ((message as { tool_calls?: Array<{ id: string }> }).tool_calls ?? []).map((call) => call.id),
          ),
        );
        for (const message of toolMessages(body)) expect(calls.has(message.tool_call_id ?? '')).toBe(true);
        expect(toolMessages(body)).toHaveLength(calls.size);
      }
      // Whole turns were left out of the last request, not only shortened.
      expect(sent.at(-1)?.messages.length).toBeLessThan(2 + 2 * ROUNDS);
      expect(sent.some((body) => body.messages.some((message) => message.content?.includes('shortened to fit')))).toBe(
        true,
      );

      const { events } = await readRunEvents(app.http, run.id, ADMIN_KEY);
      const trims = events.filter((event) => event.event === 'llm.context_trimmed').map((event) => event.data);
      expect(trims.length).toBeGreaterThan(0);
      for (const trim of trims) {
        expect(trim).toMatchObject({ node_id: 'llm-1', context_window: WINDOW, reserved_tokens: MAX_TOKENS });
        expect(Number(trim.tokens_before)).toBeGreaterThan(WINDOW - MAX_TOKENS);
        expect(Number(trim.tokens_after)).toBeLessThanOrEqual(WINDOW - MAX_TOKENS);
      }
      expect(trims.some((trim) => Number(trim.dropped_messages) > 0)).toBe(true);
      // The stored conversation stays whole: the node's record has every call and its result.
      const node = (await api.getRun(run.id)).nodes?.find((candidate) => candidate.node_id === 'llm-1');
      expect(node?.tool_calls).toHaveLength(ROUNDS);
    }, 60_000);

    it('should fail the node with a clear error instead of sending a request the window cannot hold', async () => {
      llm.script([
        reply.toolCalls([{ name: 'read_chapter', id: 'call_big', arguments: { chapter: 1 } }]),
        reply.text('Never sent.'),
      ]);
      const run = await api.run(agentWorkflow({ tools: ['read_chapter'], context_window: 1024, max_tokens: 200 }), {
        question: 'Read chapter 1.',
      });

      expect(run.status).toBe('failed');
      expect(JSON.stringify(run)).toContain("does not fit the model's context window");
      expect(bodies()).toHaveLength(1);
    });
  });

  describe('tool selection', () => {
    const names = (body: Body) => (body.tools ?? []).map((tool) => tool.function.name);

    beforeAll(async () => {
      await createPoolTools(api, APIZOO_POOL, (name) => `return { called: ${JSON.stringify(name)} };`);
    }, 120_000);

    it('should offer at most k tools plus search_tools on every call of a node over 300, the right one among them', async () => {
      llm.script([
        reply.toolCalls([{ name: 'gmail_users_stop', id: 'call_stop', arguments: { user_id: 'me' } }]),
        reply.text('Push notifications are stopped.'),
      ]);
      const run = await api.run(
        agentWorkflow({
          tools: [{ category: 'apizoo' }, 'calculator'],
          tool_selection: { max_tools: 8, always: ['calculator'] },
        }),
        { question: 'How can I stop Gmail push notifications that I set up?' },
      );

      expect(run).toMatchObject({ status: 'succeeded', outputs: { answer: 'Push notifications are stopped.' } });
      const offered = bodies().map(names);
      for (const tools of offered) {
        expect(tools.length).toBeLessThanOrEqual(9);
        expect(tools).toEqual(expect.arrayContaining(['gmail_users_stop', 'calculator', 'search_tools']));
      }
      expect(toolMessages(bodies()[1])[0].content).toContain('gmail_users_stop');
      const node = (await api.getRun(run.id)).nodes?.find((candidate) => candidate.node_id === 'llm-1') as unknown as {
        offered_tools: string[][];
      };
      expect(node.offered_tools).toEqual(offered);
      const { events } = await readRunEvents(app.http, run.id, ADMIN_KEY);
      const calls = events.filter((event) => event.event === 'llm.call');
      expect(calls.map((event) => event.data.offered_tools)).toEqual(offered);
    });

    it('should add the tools search_tools finds to the next calls, beyond k', async () => {
      llm.script([
        reply.toolCalls([{ name: 'search_tools', id: 'call_search', arguments: { query: 'create a new quiz form' } }]),
        reply.text('I can create the form now.'),
      ]);
      const run = await api.run(agentWorkflow({ tools: ['*'], tool_selection: { max_tools: 4 } }), {
        question: 'What is 2 + 2?',
      });

      expect(run.status).toBe('succeeded');
      const [first, second] = bodies().map(names);
      expect(first).toHaveLength(5);
      expect(first).toContain('search_tools');
      const found = toolMessages(bodies()[1])[0].content ?? '';
      expect(found).toContain('- google_forms_forms_create: ');
      expect(first).not.toContain('google_forms_forms_create');
      expect(second).toContain('google_forms_forms_create');
      expect(second.length).toBeGreaterThan(5);
      expect(second.length).toBeLessThanOrEqual(4 + 1 + 5);
    });
  });
});
