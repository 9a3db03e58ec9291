import { Type } from '@sinclair/typebox';
import { NODE_HANDLERS } from './nodes/node-handlers';
import { llmNodeOutputShape } from './nodes/llm-node-output';
import { resolveOutputPath } from './resolve-output-path';

const tool = NODE_HANDLERS.tool.output({ tool: 'add' }, {});

describe(resolveOutputPath.name, () => {
  it('should reach fields, array items and lengths of a closed shape', () => {
    const llm = llmNodeOutputShape({ prompt: 'x' });
    expect(resolveOutputPath(llm, ['tool_calls', '0', 'name'], 'llm-1')).toMatchObject({
      ok: true,
      shape: { type: 'string' },
    });
    expect(resolveOutputPath(llm, ['text', 'length'], 'llm-1')).toMatchObject({ ok: true, shape: { type: 'integer' } });
    expect(resolveOutputPath(llm, ['usage', 'total_tokens'], 'llm-1')).toMatchObject({ ok: true });
  });

  it('should let any path under an unknown value through to the run', () => {
    expect(resolveOutputPath(tool, ['data', 'rows', '3', 'x'], 't')).toMatchObject({ ok: true, shape: {} });
  });

  it('should read a null-or-string field as either and refuse fields of both', () => {
    expect(resolveOutputPath(tool, ['error', 'length'], 't')).toMatchObject({ ok: true });
    expect(resolveOutputPath(tool, ['error', 'code'], 't')).toMatchObject({ ok: false });
  });

  it('should suggest the sibling that can hold the rest of the path', () => {
    expect(resolveOutputPath(tool, ['output', 'sum'], 't')).toMatchObject({ ok: false, suggestion: 'data.sum' });
  });

  it('should report the deprecated fields a path goes through', () => {
    expect(resolveOutputPath(llmNodeOutputShape({}), ['output'], 'llm-1')).toMatchObject({
      ok: true,
      deprecated: [{ path: 'output', replacement: 'text' }],
    });
  });

  it('should give an LLM node with an output_schema a data field of that schema', () => {
    const shape = llmNodeOutputShape({
      output_schema: { type: 'object', properties: { total: { type: 'number' } }, additionalProperties: false },
    });
    expect(resolveOutputPath(shape, ['data', 'total'], 'llm-1')).toMatchObject({ ok: true });
    expect(resolveOutputPath(shape, ['data', 'totl'], 'llm-1')).toMatchObject({ ok: false, suggestion: 'data.total' });
    expect(resolveOutputPath(llmNodeOutputShape({}), ['data'], 'llm-1')).toMatchObject({ ok: false });
  });

  it('should give the start node the inputs schema, open when the schema leaves it open', () => {
    const inputs = { type: 'object', properties: { city: { type: 'string' } } };
    const shape = NODE_HANDLERS.start.output({}, { inputs });
    expect(resolveOutputPath(shape, ['city'], 'inputs')).toMatchObject({ ok: true });
    expect(resolveOutputPath(shape, ['cty'], 'inputs')).toMatchObject({
      ok: true,
      undeclared: { path: 'cty', suggestion: 'city' },
    });
    expect(resolveOutputPath(NODE_HANDLERS.start.output({}, {}), ['anything'], 'inputs')).toMatchObject({ ok: true });
  });

  it('should try each alternative of an anyOf', () => {
    const shape = Type.Union([
      Type.Object({ a: Type.String() }, { additionalProperties: false }),
      Type.Array(Type.String()),
    ]);
    expect(resolveOutputPath(shape, ['a'], 'x')).toMatchObject({ ok: true });
    expect(resolveOutputPath(shape, ['0'], 'x')).toMatchObject({ ok: true });
    expect(resolveOutputPath(shape, ['b'], 'x')).toMatchObject({ ok: false });
  });

  it('should give the template and condition nodes closed shapes of their own', () => {
    expect(resolveOutputPath(NODE_HANDLERS.template.output({ template: 'x' }, {}), ['output'], 't')).toMatchObject({
      ok: true,
    });
    expect(
      resolveOutputPath(NODE_HANDLERS.condition.output({ conditions: [] }, {}), ['results', '0'], 'c'),
    ).toMatchObject({ ok: true });
    expect(resolveOutputPath(NODE_HANDLERS.condition.output({ conditions: [] }, {}), ['text'], 'c')).toMatchObject({
      ok: false,
    });
  });
});
