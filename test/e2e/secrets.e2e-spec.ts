import type { ServerResponse } from 'node:http';
import request from 'supertest';
import { toolBody } from '../factories/tool.factory';
import { sendJson, startHttpTestServer, type HttpTestServer, type RecordedRequest } from '../support/http-test-server';
import { bearer, startTestApp, type TestApp } from '../support/test-app';

interface Problem {
  status: number;
  errors?: Array<{ field: string; message: string }>;
}

interface ToolBody {
  id: string;
  implementation_config: Record<string, unknown>;
}

const STATIC_TOKEN = 'static-header-token-1111';
const STATIC_QUERY = 'static-query-secret-2222';
const QUERY_KEY = 'auth-query-key-3333';
const APP_ID = 'custom-appid-4444';

/** A body that echoes the request the way debugging endpoints (httpbin's /anything) do. */
const echo = (recorded: RecordedRequest, response: ServerResponse, status = 200): void =>
  sendJson(response, status, { url: recorded.url, headers: recorded.headers });

describe('Secrets (e2e)', () => {
  let sut: TestApp;
  let userKey: string;
  let api: HttpTestServer;
  let elsewhere: HttpTestServer;
  let handler: (recorded: RecordedRequest, response: ServerResponse) => void;

  beforeAll(async () => {
    api = await startHttpTestServer((recorded, response) => handler(recorded, response));
    // Another port is another origin.
    elsewhere = await startHttpTestServer((recorded, response) => echo(recorded, response));
    sut = await startTestApp({ OUTBOUND_ALLOW_PRIVATE: '127.0.0.1/32' });
    userKey = await sut.createUserKey('secret-keeper');
  });

  beforeEach(() => {
    handler = (recorded, response) => echo(recorded, response);
  });

  afterAll(async () => {
    await sut.close();
    await api.close();
    await elsewhere.close();
  });

  const httpTool = (name: string, config: Record<string, unknown>, properties: Record<string, unknown> = {}) =>
    toolBody({
      name,
      function_schema: { name, description: 'calls the API', parameters: { type: 'object', properties } },
      implementation_type: 'http',
      effect: 'read_only',
      implementation_config: { method: 'GET', parse_mode: 'json', retry: { count: 0 }, ...config },
    });

  const create = (body: Record<string, unknown>) =>
    request(sut.http).post('/api/v1/tools').set(bearer(userKey)).send(body);

  const execute = (name: string) =>
    request(sut.http).post(`/api/v1/tools/${name}/execute`).set(bearer(userKey)).send({ arguments: {} }).expect(200);

  const logsOf = async (name: string) =>
    JSON.stringify((await request(sut.http).get(`/api/v1/tools/${name}/logs`).set(bearer(userKey)).expect(200)).body);

  describe('static headers and query of http tools', () => {
    const staticConfig = () => ({
      url: `${api.origin}/items?page=1`,
      headers: { 'X-Api-Token': STATIC_TOKEN, Accept: 'application/json' },
      query: { access_token: STATIC_QUERY, units: 'metric' },
    });

    it('should mask credential headers and query values in create, GET and list, and show the rest', async () => {
      const created = await create(httpTool('static_secrets', staticConfig())).expect(201);
      const fetched = await request(sut.http).get('/api/v1/tools/static_secrets').set(bearer(userKey)).expect(200);
      const listed = await request(sut.http)
        .get('/api/v1/tools?implementation_type=http&page_size=100')
        .set(bearer(userKey))
        .expect(200);

      for (const body of [created.body, fetched.body, listed.body]) {
        const text = JSON.stringify(body);
        expect(text).not.toContain(STATIC_TOKEN);
        expect(text).not.toContain(STATIC_QUERY);
      }
      expect((fetched.body as ToolBody).implementation_config).toMatchObject({
        headers: { 'X-Api-Token': '********', Accept: 'application/json' },
        query: { access_token: '********', units: 'metric' },
      });
    });

    it('should keep the stored values when the masks come back on PUT and PATCH, and take new ones', async () => {
      const body = httpTool('round_trip', staticConfig());
      await create(body).expect(201);
      const fetched = await request(sut.http).get('/api/v1/tools/round_trip').set(bearer(userKey)).expect(200);
      const masked = (fetched.body as ToolBody).implementation_config;

      await request(sut.http)
        .put('/api/v1/tools/round_trip')
        .set(bearer(userKey))
        .send({ ...body, description: 'edited', implementation_config: masked })
        .expect(200);
      await request(sut.http)
        .patch('/api/v1/tools/round_trip')
        .set(bearer(userKey))
        .send({ implementation_config: { ...masked, query: { access_token: 'new-query-secret', units: 'si' } } })
        .expect(200);
      await execute('round_trip');

      const received = api.requests.at(-1) as RecordedRequest;
      expect(received.headers['x-api-token']).toBe(STATIC_TOKEN);
      expect(received.url).toBe('/items?page=1&access_token=new-query-secret&units=si');
    });
  });

  describe('executing', () => {
    it('should keep an api_key_query key out of metadata.final_url, the echoed body and the call log', async () => {
      await create(
        httpTool('query_key', { url: `${api.origin}/search?q=x`, auth: { type: 'api_key_query', key: QUERY_KEY } }),
      ).expect(201);

      const response = await execute('query_key');

      expect(api.requests.at(-1)?.url).toBe(`/search?q=x&api_key=${QUERY_KEY}`);
      expect(response.body).toMatchObject({
        success: true,
        metadata: { final_url: `${api.origin}/search?q=x&api_key=********` },
        data: { url: '/search?q=x&api_key=********' },
      });
      expect(JSON.stringify(response.body)).not.toContain(QUERY_KEY);
      expect(await logsOf('query_key')).not.toContain(QUERY_KEY);
    });

    it('should mask a key sent under a query name of its own choosing, and in error answers too', async () => {
      handler = (recorded, response) => echo(recorded, response, 500);
      await create(
        httpTool('appid_key', {
          url: `${api.origin}/fail`,
          headers: { 'X-Api-Token': STATIC_TOKEN },
          auth: { type: 'api_key_query', key: APP_ID, query_name: 'appid' },
        }),
      ).expect(201);

      const response = await execute('appid_key');

      expect(api.requests.at(-1)?.url).toBe(`/fail?appid=${APP_ID}`);
      expect(response.body).toMatchObject({ success: false, metadata: { status_code: 500 } });
      const text = JSON.stringify(response.body);
      expect(text).toContain('********');
      expect(text).not.toContain(APP_ID);
      expect(text).not.toContain(STATIC_TOKEN);
      const logs = await logsOf('appid_key');
      expect(logs).not.toContain(APP_ID);
      expect(logs).not.toContain(STATIC_TOKEN);
    });

    it('should not send a custom credential header to another origin a redirect points at', async () => {
      handler = (_recorded, response) => {
        response.writeHead(302, { location: `${elsewhere.origin}/landing` }).end();
      };
      await create(
        httpTool('redirected', {
          url: `${api.origin}/start`,
          headers: { 'X-Api-Token': STATIC_TOKEN, 'X-Trace': 'kept' },
          auth: { type: 'bearer', token: 'bearer-token-5555' },
        }),
      ).expect(201);

      const response = await execute('redirected');

      expect(response.body).toMatchObject({ success: true, metadata: { final_url: `${elsewhere.origin}/landing` } });
      expect(api.requests.at(-1)?.headers).toMatchObject({ 'x-api-token': STATIC_TOKEN });
      const landed = elsewhere.requests.at(-1) as RecordedRequest;
      expect(landed.url).toBe('/landing');
      expect(landed.headers).not.toHaveProperty('x-api-token');
      expect(landed.headers).not.toHaveProperty('authorization');
      expect(landed.headers).toMatchObject({ 'x-trace': 'kept' });
    });

    it('should mask credentials the model passes to http_request in its call log', async () => {
      const response = await request(sut.http)
        .post('/api/v1/tools/http_request/execute')
        .set(bearer(userKey))
        .send({
          arguments: {
            url: `${api.origin}/model?token=model-token-6666`,
            headers: { Authorization: 'Bearer model-bearer-7777' },
          },
        })
        .expect(200);

      expect(api.requests.at(-1)?.headers.authorization).toBe('Bearer model-bearer-7777');
      expect((response.body as { metadata: { final_url: string } }).metadata.final_url).toBe(
        `${api.origin}/model?token=********`,
      );
      const logs = await logsOf('http_request');
      expect(logs).not.toContain('model-token-6666');
      expect(logs).not.toContain('model-bearer-7777');
    });
  });

  describe('arguments', () => {
    it('should log ordinary arguments in clear and mask those the schema or a credential word names', async () => {
      const properties = {
        author: { type: 'string' },
        keyword: { type: 'string' },
        sort_key: { type: 'string' },
        pin: { type: 'string', format: 'password' },
        passe: { type: 'string', writeOnly: true },
        code: { type: 'string', 'x-secret': true },
        apiKey: { type: 'string' },
      };
      await create(httpTool('book_search', { url: `${api.origin}/books` }, properties)).expect(201);
      const args = {
        author: 'Jane Austen',
        keyword: 'pride',
        sort_key: 'title',
        pin: 'pin-5151',
        passe: 'passe-5252',
        code: 'code-5353',
        apiKey: 'key-5454',
      };

      await request(sut.http)
        .post('/api/v1/tools/book_search/execute')
        .set(bearer(userKey))
        .send({ arguments: args })
        .expect(200);

      const logs = (await request(sut.http).get('/api/v1/tools/book_search/logs').set(bearer(userKey)).expect(200))
        .body as { items: Array<{ input: string }> };
      expect(JSON.parse(logs.items[0].input)).toEqual({
        author: 'Jane Austen',
        keyword: 'pride',
        sort_key: 'title',
        pin: '********',
        passe: '********',
        code: '********',
        apiKey: '********',
      });
    });
  });

  describe('credentials in the URL template', () => {
    it.each([
      ['https://api.example.com/v1/items?access_token=abc123&page=1', 'access_token'],
      ['https://api.example.com/v1/items?page=1&API_KEY=abc123', 'API_KEY'],
      ['https://ann:pw@api.example.com/v1/items', 'user:password@'],
    ])('should refuse %s at save with 400 pointing at the URL, auth and query', async (url, named) => {
      const response = await create(httpTool(`url_secret_${Date.now()}`, { url })).expect(400);

      const errors = (response.body as Problem).errors ?? [];
      expect(errors.map((error) => error.field)).toEqual(['implementation_config.url']);
      expect(errors[0].message).toContain(named);
      expect(errors[0].message).toContain('"auth"');
      expect(JSON.stringify(response.body)).not.toContain('abc123');
    });

    it('should accept a credential parameter filled from an argument', async () => {
      const body = httpTool(
        'templated_token',
        { url: `${api.origin}/items?access_token={token}` },
        { token: { type: 'string' } },
      );

      const created = await create(body).expect(201);

      expect((created.body as ToolBody).implementation_config.url).toBe(`${api.origin}/items?access_token={token}`);
    });
  });
});
