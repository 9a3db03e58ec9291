import { context, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { type OpenAITestServer, reply } from '../support/openai-test-server';
import { ADMIN_KEY, type TestApp } from '../support/test-app';
import { type ToolBackend } from '../support/tool-backend';
import { waitFor } from '../support/wait-for';
import { WorkflowApi } from '../support/workflow-api';
import { agentWorkflow, httpToolBody } from '../support/workflow-fixtures';
import { startWorkflowStack, type WorkflowStack } from '../support/workflow-stack';

interface SpanNode {
  name: string;
  attributes: ReadableSpan['attributes'];
  children: SpanNode[];
}

/** The finished spans of one trace as a tree, children in start order. */
function spanTree(spans: ReadableSpan[], root: ReadableSpan): SpanNode {
  const children = spans
    .filter((span) => span.parentSpanContext?.spanId === root.spanContext().spanId)
    .sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1]);
  return { name: root.name, attributes: root.attributes, children: children.map((child) => spanTree(spans, child)) };
}

const names = (node: SpanNode): unknown =>
  node.children.length === 0 ? node.name : { [node.name]: node.children.map(names) };

/**
 * The finished spans once the run's own span has ended: `?wait=true` answers as soon as the run's end is stored,
 * and the run's span ends a moment later, once its last events are written.
 */
async function spansOfEndedRun(exporter: InMemorySpanExporter): Promise<ReadableSpan[]> {
  const ended = () => exporter.getFinishedSpans().some((span) => span.name === 'workflow.run');
  await waitFor(ended, { what: 'the workflow.run span to end' });
  return exporter.getFinishedSpans();
}

describe('OpenTelemetry traces (e2e)', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  let stack: WorkflowStack | undefined;
  let app: TestApp;
  let llm: OpenAITestServer;
  let backend: ToolBackend;
  let api: WorkflowApi;

  beforeAll(async () => {
    provider.register();
    stack = await startWorkflowStack();
    ({ app, llm, backend } = stack);
    api = new WorkflowApi(app.http, ADMIN_KEY);
    await api.createTool(httpToolBody('trace_weather', `${backend.origin}/weather?city={id}`));
  });

  afterEach(() => {
    llm.reset();
    exporter.reset();
  });

  afterAll(async () => {
    await stack?.close();
    await provider.shutdown();
    trace.disable();
    context.disable();
  });

  it('should trace a run as run → node → model call / tool call spans with the GenAI attributes', async () => {
    llm.script([
      reply.toolCalls([{ name: 'trace_weather', id: 'call_t1', arguments: { id: 'Oslo' } }], {
        usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 },
      }),
      reply.text('Cold in Oslo.', { usage: { prompt_tokens: 13, completion_tokens: 3, total_tokens: 16 } }),
    ]);

    const run = await api.run(agentWorkflow({ tools: ['trace_weather'] }), { question: 'Weather in Oslo?' });

    expect(run.status).toBe('succeeded');
    const spans = await spansOfEndedRun(exporter);
    const roots = spans.filter((span) => span.name === 'workflow.run');
    expect(roots).toHaveLength(1);
    const tree = spanTree(spans, roots[0]);
    expect(names(tree)).toEqual({
      'workflow.run': [
        'workflow.node start',
        { 'workflow.node llm': ['chat test-model', 'execute_tool trace_weather', 'chat test-model'] },
        'workflow.node end',
      ],
    });
    expect(tree.attributes).toMatchObject({ 'toolflow.run.id': run.id, 'toolflow.run.status': 'succeeded' });
    const [firstCall, toolCall, secondCall] = tree.children[1].children;
    expect(tree.children[1].attributes).toMatchObject({ 'toolflow.node.id': 'llm-1', 'toolflow.node.type': 'llm' });
    expect(firstCall.attributes).toEqual({
      'gen_ai.operation.name': 'chat',
      'gen_ai.system': 'openai',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'test-model',
      'gen_ai.usage.input_tokens': 11,
      'gen_ai.usage.output_tokens': 7,
      'gen_ai.response.finish_reasons': ['tool_calls'],
    });
    expect(secondCall.attributes).toMatchObject({
      'gen_ai.usage.input_tokens': 13,
      'gen_ai.usage.output_tokens': 3,
      'gen_ai.response.finish_reasons': ['stop'],
    });
    expect(toolCall.attributes).toEqual({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'trace_weather',
      'gen_ai.tool.call.id': 'call_t1',
      'gen_ai.tool.type': 'function',
      'toolflow.tool.status': 'success',
    });
  });

  it('should mark the run, node and model call spans failed when the provider refuses the call', async () => {
    llm.script([
      { kind: 'error', status: 400, body: { error: { message: 'bad request', type: 'invalid_request_error' } } },
    ]);

    const run = await api.run(agentWorkflow({}), { question: 'Hi?' });

    expect(run.status).toBe('failed');
    const spans = await spansOfEndedRun(exporter);
    const byName = (name: string) => spans.find((span) => span.name === name);
    for (const name of ['workflow.run', 'workflow.node llm', 'chat test-model']) {
      expect(byName(name)?.status.code).toBe(2);
    }
    expect(byName('workflow.node start')?.status.code).not.toBe(2);
  });
});
