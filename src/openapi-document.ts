import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';

/** The OpenAPI document of the running app: what /api/docs serves and what `npm run openapi` writes. */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  return SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('ToolFlow')
      .setDescription(
        'Tools for LLMs inside workflows. Every route but /health needs `Authorization: Bearer <API key>`. ' +
          'Errors are application/problem+json with an `errors` list naming each field.',
      )
      .setVersion('1')
      .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'API key' })
      .build(),
  );
}
