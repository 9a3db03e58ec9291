import { type INestApplication, RequestMethod } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { NextFunction, Request, Response } from 'express';
import type { Server } from 'node:http';
import { SwaggerModule } from '@nestjs/swagger';
import { Logger } from 'nestjs-pino';
import { AppModule } from './app.module';
import type { AppConfig } from './config/app-config';
import { ProblemFilter } from './common/errors/problem.filter';
import { limitBodyDepth } from './common/http/body-depth';
import { bodyParserErrors } from './common/http/body-errors';
import { serveConsole } from './common/http/console-static';
import { assignRequestId, REQUEST_ID_HEADER } from './common/http/request-id';
import { createValidationPipe } from './common/http/validation.pipe';
import { buildOpenApiDocument } from './openapi/openapi-document';

/**
 * How long an idle keep-alive connection stays open: longer than clients and load balancers keep theirs (60 s is
 * the usual idle timeout). With Node's 5 s, a client that reuses a connection just as the server closes it gets
 * a reset ("other side closed"), as 1 of 1000 runs posted at once on a loaded machine did.
 */
const KEEP_ALIVE_TIMEOUT_MS = 65_000;

/** A worker serves its health probe and nothing else: the API is the api processes' job. */
function onlyHealth(request: Request, response: Response, next: NextFunction): void {
  if (request.method === 'GET' && request.path === '/health') return next();
  response
    .status(404)
    .type('application/problem+json')
    .send({ type: 'about:blank', title: 'Not Found', status: 404, detail: 'A worker process serves only GET /health' });
}

/** Builds the configured app (used by main.ts and by the e2e tests, so both run the same wiring). */
export async function createApp(config: AppConfig): Promise<INestApplication> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config), {
    bodyParser: false,
    bufferLogs: true,
    // A failed start throws to the caller (main.ts prints it and exits 1) instead of Nest calling process.exit,
    // which in a test process ended the whole run when one app start failed.
    abortOnError: false,
  });
  app.useLogger(app.get(Logger));
  const server: Server = app.getHttpServer();
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  // A request's headers may take this long; it must exceed the keep-alive timeout (Node's advice).
  server.headersTimeout = KEEP_ALIVE_TIMEOUT_MS + 1000;
  if (config.role === 'worker') app.use(onlyHealth);
  app.use(assignRequestId);
  if (config.corsOrigins.length > 0) {
    app.enableCors({
      origin: config.corsOrigins,
      exposedHeaders: [REQUEST_ID_HEADER, 'ETag', 'Location', 'Retry-After'],
    });
  }
  app.useBodyParser('json', { limit: config.bodyLimitBytes });
  app.use(bodyParserErrors);
  app.use(limitBodyDepth);
  app.set('x-powered-by', false);
  // ETags are versions (set per resource, see common/http/etag.ts), not hashes Express computes of every body.
  app.set('etag', false);
  serveConsole(app);
  app.setGlobalPrefix('api/v1', {
    exclude: [
      { path: 'health', method: RequestMethod.GET },
      { path: 'metrics', method: RequestMethod.GET },
      { path: 'mcp', method: RequestMethod.ALL },
    ],
  });
  app.useGlobalPipes(createValidationPipe());
  app.useGlobalFilters(new ProblemFilter());
  if (config.role === 'worker') return app;

  const document = buildOpenApiDocument(app);
  SwaggerModule.setup('api/docs', app, document, { jsonDocumentUrl: 'api/docs-json' });
  return app;
}
