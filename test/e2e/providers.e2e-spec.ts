import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { AnthropicTestServer } from '../support/anthropic-test-server';
import { OllamaTestServer } from '../support/ollama-test-server';
import { OpenAITestServer } from '../support/openai-test-server';
import { ResponsesTestServer } from '../support/responses-test-server';
import { ADMIN_KEY, startTestApp, type TestApp } from '../support/test-app';

interface CatalogModel {
  id: string;
  context_window: number;
  price: { input: number; output: number; currency: string; source: string } | null;
  sources: string[];
}
interface CatalogProvider {
  name: string;
  protocol: string;
  base_url: string | null;
  is_default: boolean;
  default_model: string | null;
  models: CatalogModel[];
  reachable: boolean | null;
  last_error: string | null;
}

describe('GET /api/v1/providers (e2e)', () => {
  let app: TestApp;
  let openai: OpenAITestServer;
  let anthropic: AnthropicTestServer;
  let responses: ResponsesTestServer;
  let ollama: OllamaTestServer;
  let userKey: string;

  beforeAll(async () => {
    [openai, anthropic, responses, ollama] = await Promise.all([
      OpenAITestServer.start(),
      AnthropicTestServer.start(),
      ResponsesTestServer.start(),
      OllamaTestServer.start(),
    ]);
    openai.listModels(['gpt-local', 'qwen3']);
    anthropic.listModels(['claude-local']);
    responses.listModels(['resp-model']);
    ollama.listModels(['llama3.1:8b']);
    const pricesFile = join(mkdtempSync(join(tmpdir(), 'toolflow-prices-')), 'prices.json');
    writeFileSync(
      pricesFile,
      JSON.stringify({ 'chat/qwen3': { input: 0.5, output: 1.5 }, 'llama3.1:8b': { input: 0, output: 0 } }),
    );
    app = await startTestApp({
      OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
      PRICES_FILE: pricesFile,
      LLM_DEFAULT_PROVIDER: 'chat',
      LLM_PROVIDERS: JSON.stringify({
        chat: {
          base_url: openai.baseUrl,
          api_key: 'sk-test',
          default_model: 'gpt-local',
          models: { 'gpt-local': { context_window: 32768, price: { input: 1, output: 2, currency: 'EUR' } } },
        },
        claude: { protocol: 'anthropic', base_url: anthropic.baseUrl, api_key: 'ak-test' },
        resp: { protocol: 'openai-responses', base_url: responses.baseUrl, api_key: 'sk-test' },
        local: { protocol: 'ollama', base_url: ollama.baseUrl },
      }),
    });
    userKey = await app.createUserKey();
  });

  afterAll(async () => {
    await app?.close();
    await Promise.all([openai?.close(), anthropic?.close(), responses?.close(), ollama?.close()]);
  });

  const list = async (key: string, query = ''): Promise<CatalogProvider[]> => {
    const response = await request(app.http)
      .get(`/api/v1/providers${query}`)
      .set('Authorization', `Bearer ${key}`)
      .expect(200);
    return (response.body as { items: CatalogProvider[] }).items;
  };
  const byName = (items: CatalogProvider[], name: string) => items.find((item) => item.name === name)!;
  const model = (provider: CatalogProvider, id: string) => provider.models.find((entry) => entry.id === id);

  it('should list each protocol with the models its own endpoint names', async () => {
    const items = await list(ADMIN_KEY);
    expect(items.map((item) => [item.name, item.protocol]).sort()).toEqual([
      ['chat', 'openai-chat'],
      ['claude', 'anthropic'],
      ['local', 'ollama'],
      ['openai', 'openai-chat'],
      ['resp', 'openai-responses'],
    ]);
    expect(model(byName(items, 'chat'), 'qwen3')?.sources).toEqual(['listed', 'priced']);
    expect(model(byName(items, 'claude'), 'claude-local')?.sources).toEqual(['listed']);
    expect(model(byName(items, 'resp'), 'resp-model')?.sources).toEqual(['listed']);
    expect(model(byName(items, 'local'), 'llama3.1:8b')?.sources).toEqual(['listed']);
    for (const name of ['chat', 'claude', 'resp', 'local']) {
      expect(byName(items, name)).toMatchObject({ reachable: true, last_error: null });
    }
  });

  it('should give configured context windows and prices, and null for a model nothing prices', async () => {
    const chat = byName(await list(ADMIN_KEY), 'chat');
    expect(chat).toMatchObject({ is_default: true, default_model: 'gpt-local' });
    expect(model(chat, 'gpt-local')).toEqual({
      id: 'gpt-local',
      context_window: 32768,
      price: { input: 1, output: 2, currency: 'EUR', source: 'provider' },
      sources: ['configured', 'listed'],
    });
    expect(model(chat, 'qwen3')?.price).toEqual({ input: 0.5, output: 1.5, currency: 'USD', source: 'prices_file' });
    expect(model(byName(await list(ADMIN_KEY), 'claude'), 'claude-local')?.price).toBeNull();
  });

  it('should say why a provider is unreachable, and show where it is to admins only', async () => {
    const admin = byName(await list(ADMIN_KEY), 'openai');
    expect(admin.reachable).toBe(false);
    expect(admin.last_error).toMatch(/^listing models failed: /);
    expect(admin.base_url).toBe('http://127.0.0.1:9/v1');
    const user = await list(userKey);
    expect(user.every((item) => item.base_url === null)).toBe(true);
  });

  it('should reuse a fresh listing and list again when asked to refresh', async () => {
    const before = openai.modelListings;
    await list(userKey);
    expect(openai.modelListings).toBe(before);
    openai.listModels(['gpt-local', 'qwen3', 'new-model']);
    const refreshed = byName(await list(userKey, '?refresh=true'), 'chat');
    expect(openai.modelListings).toBe(before + 1);
    expect(model(refreshed, 'new-model')?.sources).toEqual(['listed']);
  });

  it('should answer 400 naming refresh when it is not a boolean', async () => {
    const response = await request(app.http)
      .get('/api/v1/providers?refresh=maybe')
      .set('Authorization', `Bearer ${userKey}`)
      .expect(400);
    expect(JSON.stringify(response.body)).toContain('refresh');
  });

  it('should need an API key', async () => {
    await request(app.http).get('/api/v1/providers').expect(401);
  });
});
