import { type ChildApp, startChildApp } from '../support/child-app';
import { type HttpTestServer, startHttpTestServer } from '../support/http-test-server';
import { ADMIN_KEY, throwawayDatabase } from '../support/test-app';

// The app runs as a process of its own (compiled at start): the SDK must start before express and http load.
jest.setTimeout(120_000);

interface OtlpExport {
  resourceSpans: Array<{
    resource: { attributes: Array<{ key: string; value: { stringValue?: string } }> };
    scopeSpans: Array<{ spans: Array<{ name: string; attributes: Array<{ key: string; value: unknown }> }> }>;
  }>;
}

describe('OpenTelemetry SDK start-up with OTEL_EXPORTER_OTLP_ENDPOINT (e2e, child process)', () => {
  let collector: HttpTestServer;
  let database: { url: string; drop: () => Promise<void> };
  let child: ChildApp | undefined;

  beforeAll(async () => {
    collector = await startHttpTestServer((_recorded, response) => {
      response.statusCode = 200;
      response.setHeader('content-type', 'application/json');
      response.end('{}');
    });
    database = await throwawayDatabase();
  });

  afterAll(async () => {
    if (child?.process.exitCode === null) child.process.kill('SIGKILL');
    await collector.close();
    await database.drop();
  });

  it('should export the HTTP server spans of requests to <endpoint>/v1/traces over OTLP/HTTP, and flush at exit', async () => {
    child = await startChildApp({
      DATABASE_URL: database.url,
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.origin,
      OTEL_SERVICE_NAME: 'toolflow-sdk-test',
    });
    const listed = await fetch(`${child.url}/api/v1/tools`, { headers: { Authorization: `Bearer ${ADMIN_KEY}` } });
    expect(listed.status).toBe(200);
    await fetch(`${child.url}/health`);

    child.process.kill('SIGTERM');
    await child.exited;

    const exports = collector.requests.filter((recorded) => recorded.url === '/v1/traces');
    expect(exports.length).toBeGreaterThan(0);
    const batches = exports.map((recorded) => JSON.parse(recorded.body) as OtlpExport);
    const resources = batches.flatMap((batch) => batch.resourceSpans);
    const serviceNames = resources.map(
      (resource) => resource.resource.attributes.find((attribute) => attribute.key === 'service.name')?.value,
    );
    expect(serviceNames).toContainEqual({ stringValue: 'toolflow-sdk-test' });
    const spans = resources.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans));
    const targets = spans.flatMap((span) =>
      span.attributes.filter((attribute) => ['http.target', 'url.path', 'http.route'].includes(attribute.key)),
    );
    expect(JSON.stringify(targets)).toContain('/api/v1/tools');
    // Probes are not traced.
    expect(JSON.stringify(targets)).not.toContain('/health');
  });
});
