import type { FunctionTool } from '../../shared/tool-types';
import { embeddingText } from './semantic-ranking';
import { EMBEDDING_BATCH, toolVectorKey, toolVectors, type EmbeddedTool, type ToolVectorStore } from './tool-vectors';

const schema = (name: string, description = `Does ${name}`): FunctionTool => ({
  type: 'function',
  function: { name, description, parameters: { type: 'object' } },
});

class MemoryStore implements ToolVectorStore {
  readonly rows = new Map<string, Float32Array>();

  find(modelKey: string, toolKeys: readonly string[]): Promise<Map<string, Float32Array>> {
    const found = new Map<string, Float32Array>();
    for (const key of toolKeys) {
      const row = this.rows.get(`${modelKey} ${key}`);
      if (row) found.set(key, row);
    }
    return Promise.resolve(found);
  }

  save(modelKey: string, vectors: ReadonlyMap<string, Float32Array>): Promise<void> {
    for (const [key, vector] of vectors) this.rows.set(`${modelKey} ${key}`, vector);
    return Promise.resolve();
  }
}

describe(toolVectors.name, () => {
  const tools: EmbeddedTool[] = Array.from({ length: EMBEDDING_BATCH + 6 }, (_, index) => ({
    schema: schema(`tool_${index}`),
    id: `id-${index}`,
    version: 1,
  }));
  const embedder = () => jest.fn((texts: readonly string[]) => Promise.resolve(texts.map((text) => [text.length, 1])));

  it('should embed every tool once, in batches, and read them back from the store afterwards', async () => {
    const store = new MemoryStore();
    const embed = embedder();

    const first = await toolVectors(tools, { store, modelKey: 'openai/small', embed });
    const second = await toolVectors(tools, { store, modelKey: 'openai/small', embed });

    expect(embed.mock.calls.map(([texts]) => texts.length)).toEqual([EMBEDDING_BATCH, 6]);
    expect(embed.mock.calls[0][0][0]).toBe(embeddingText(tools[0].schema));
    expect(first).toHaveLength(tools.length);
    expect(Math.hypot(...first[0])).toBeCloseTo(1);
    expect(second).toEqual(first);
    expect(store.rows.size).toBe(tools.length);
  });

  it('should embed again only a new tool version, and everything for another model', async () => {
    const store = new MemoryStore();
    const embed = embedder();
    await toolVectors(tools.slice(0, 3), { store, modelKey: 'openai/small', embed });
    embed.mockClear();

    const changed = { ...tools[1], version: 2, schema: schema('tool_1', 'Now does something else') };
    await toolVectors([tools[0], changed, tools[2]], { store, modelKey: 'openai/small', embed });
    await toolVectors([tools[0]], { store, modelKey: 'local/nomic-embed-text', embed });

    expect(embed.mock.calls.map(([texts]) => texts)).toEqual([
      ['tool 1: Now does something else'],
      [embeddingText(tools[0].schema)],
    ]);
  });

  it('should key stored tools by id and version and other tools by name, both with the hash of the text', () => {
    expect(toolVectorKey(tools[0])).toMatch(/^id-0@1:[0-9a-f]{16}$/);
    expect(toolVectorKey({ schema: schema('calculator') })).toMatch(/^calculator:[0-9a-f]{16}$/);
    expect(toolVectorKey({ schema: schema('calculator', 'other text') })).not.toBe(
      toolVectorKey({ schema: schema('calculator') }),
    );
  });

  it('should fail when the embeddings endpoint fails, keeping the batches embedded before', async () => {
    const store = new MemoryStore();
    const embed = embedder();
    embed.mockImplementationOnce(embedder()).mockRejectedValueOnce(new Error('embeddings 401: bad key'));

    await expect(toolVectors(tools, { store, modelKey: 'openai/small', embed })).rejects.toThrow('bad key');
    expect(store.rows.size).toBe(EMBEDDING_BATCH);
  });
});
