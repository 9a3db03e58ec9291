import { startHttpTestServer, type HttpTestServer } from '../../../test/support/http-test-server';
import { builtinEnvironment, runBuiltin } from '../../../test/factories/builtin.factory';
import type { BuiltinEnvironment } from './builtin-tool';
import { webFetch, type WebFetchParams } from './web-fetch';

const PAGE = `<!doctype html><html><head><title>Weather  today</title><style>body{color:red}</style>
<script>window.secret = 1</script></head><body><h1>Oslo</h1><p>It is <em>sunny</em>.</p>
<ul><li>High 21</li><li>Low 12</li></ul><a href="/more">More</a><noscript>enable js</noscript></body></html>`;

const run = (params: WebFetchParams, env: BuiltinEnvironment) => runBuiltin(webFetch, params, env);
const environment = (allowPrivate: string[]) => builtinEnvironment(allowPrivate);

describe('webFetch', () => {
  let server: HttpTestServer;
  const env = environment(['127.0.0.1/32']);

  beforeEach(async () => {
    server = await startHttpTestServer((request, response) => {
      const [type, body, status] =
        request.url === '/page'
          ? ['text/html; charset=utf-8', PAGE, 200]
          : request.url === '/data'
            ? ['application/json', '{"temp":21,"unit":"C"}', 200]
            : request.url === '/long'
              ? ['text/plain', 'w'.repeat(2000), 200]
              : request.url === '/huge'
                ? ['text/plain', 'h'.repeat(50_000), 200]
                : request.url === '/image'
                  ? ['image/png', 'PNG', 200]
                  : ['text/html', '<h1>Not here</h1>', 404];
      response.writeHead(status, { 'content-type': type });
      response.end(body);
    });
  });

  afterEach(() => server.close());

  it('should turn a page into Markdown without scripts and styles', async () => {
    const result = await run({ url: `${server.origin}/page` }, env);

    expect(result.response).toBe(
      'Title: Weather today\n\n# Oslo\n\nIt is _sunny_.\n\n-   High 21\n-   Low 12\n\n[More](/more)',
    );
    expect(result.data).toMatchObject({ title: 'Weather today', status: 200, truncated: false });
    expect(server.requests[0].headers.accept).toContain('text/html');
  });

  it('should parse a JSON document in json format', async () => {
    const result = await run({ url: `${server.origin}/data`, format: 'json' }, env);

    expect(result.data).toMatchObject({ content: { temp: 21, unit: 'C' } });
    expect(result.response).toBe('{"temp":21,"unit":"C"}');
  });

  it('should return the text as sent in raw format, cut at max_chars', async () => {
    const page = await run({ url: `${server.origin}/page`, format: 'raw' }, env);
    const long = await run({ url: `${server.origin}/long`, format: 'raw', max_chars: 500 }, env);

    expect(page.response).toBe(PAGE);
    expect(long.response).toMatch(/^w{500}\n… \[truncated 1500 more characters\]$/);
    expect(long.data).toMatchObject({ truncated: true });
  });

  it('should return the whole document when max_chars is left out', async () => {
    const whole = await run({ url: `${server.origin}/huge`, format: 'raw' }, env);

    expect(whole.response).toBe('h'.repeat(50_000));
    expect(whole.data).toMatchObject({ truncated: false });
  });

  it('should fail with the status and an excerpt on a non-2xx answer', async () => {
    await expect(run({ url: `${server.origin}/gone` }, env)).rejects.toThrow('HTTP 404 Not Found: Not here');
  });

  it('should refuse binary content', async () => {
    await expect(run({ url: `${server.origin}/image` }, env)).rejects.toThrow('only reads text');
  });

  it('should fail when json format gets something else', async () => {
    await expect(run({ url: `${server.origin}/page`, format: 'json' }, env)).rejects.toThrow('expected JSON');
  });

  it('should refuse the cloud metadata address', async () => {
    await expect(run({ url: 'http://169.254.169.254/latest/meta-data' }, env)).rejects.toMatchObject({
      rule: 'cloud-metadata',
    });
  });

  it('should be read-only', () => {
    expect(webFetch.effect).toBe('read_only');
  });
});
