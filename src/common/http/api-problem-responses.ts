import { applyDecorators } from '@nestjs/common';
import { ApiExtraModels, ApiProperty, ApiPropertyOptional, ApiResponse, getSchemaPath } from '@nestjs/swagger';

export class FieldProblemDto {
  @ApiProperty({ example: 'function_schema.function.parameters.type' }) field!: string;
  @ApiProperty({ example: 'the root of parameters must be type "object"' }) message!: string;
  @ApiPropertyOptional({
    example: '/nodes/2/data/prompt',
    description: "JSON pointer of the offending value in the request body (a workflow definition's references)",
  })
  pointer?: string;
  @ApiPropertyOptional({ example: '{{t_add.data.sum}}', description: 'What was probably meant' }) suggestion?: string;
}

/** application/problem+json (RFC 9457), the body of every error. */
export class Problem {
  @ApiProperty({ example: 'https://toolflow.dev/problems/validation-failed' }) type!: string;
  @ApiProperty({ example: 'Bad Request' }) title!: string;
  @ApiProperty({ example: 400 }) status!: number;
  @ApiProperty({ example: 'The request is invalid' }) detail!: string;
  @ApiPropertyOptional({ example: '/api/v1/tools' }) instance?: string;
  @ApiPropertyOptional({ example: '8f14e45f-ceea-467f-a0e6-0f1c1a2b3c4d', description: 'The X-Request-Id' })
  request_id?: string;
  @ApiPropertyOptional({ type: [FieldProblemDto], description: 'Each field problem' }) errors?: FieldProblemDto[];
}

interface ProblemExample {
  description: string;
  slug: string;
  title: string;
  detail: string;
  errors?: FieldProblemDto[];
}

const EXAMPLES: Record<number, ProblemExample> = {
  400: {
    description: 'Invalid request: `errors` lists each field and the reason',
    slug: 'validation-failed',
    title: 'Bad Request',
    detail: 'The request is invalid',
    errors: [{ field: 'function_schema.function.parameters.type', message: 'the root of parameters must be "object"' }],
  },
  401: {
    description: 'Missing or invalid API key',
    slug: 'unauthorized',
    title: 'Unauthorized',
    detail: 'Send an API key as Authorization: Bearer <key>',
  },
  403: {
    description: 'The API key may not do this',
    slug: 'forbidden',
    title: 'Forbidden',
    detail: 'Only the owner or an admin may change tool "get_weather"',
  },
  404: { description: 'Not found', slug: 'not-found', title: 'Not Found', detail: 'Tool "get_weather" was not found' },
  409: {
    description: 'Conflict (e.g. the name is taken)',
    slug: 'conflict',
    title: 'Conflict',
    detail: 'A tool named "get_weather" already exists',
    errors: [{ field: 'name', message: 'A tool named "get_weather" already exists' }],
  },
  412: {
    description: 'If-Match names an older version: read the row again and retry',
    slug: 'precondition-failed',
    title: 'Precondition Failed',
    detail: 'Tool "get_weather" is at version 3, not 2; read it again (its ETag) and retry',
  },
  413: {
    description: 'Request body too large',
    slug: 'payload-too-large',
    title: 'Payload Too Large',
    detail: 'Request body exceeds the limit of 1048576 bytes',
  },
  422: {
    description: 'The request is well-formed but cannot be processed',
    slug: 'unprocessable',
    title: 'Unprocessable Content',
    detail: 'The request cannot be processed',
  },
  429: {
    description: 'Too many requests: retry after the Retry-After header',
    slug: 'too-many-requests',
    title: 'Too Many Requests',
    detail: 'Too many requests; retry later',
  },
  503: {
    description: 'A dependency (the database) is unavailable: retry after the Retry-After header',
    slug: 'unavailable',
    title: 'Service Unavailable',
    detail: 'database unavailable',
  },
};

/** The OpenAPI response of an application/problem+json error with the given status and an example of its own. */
export const problemResponse = (status: number) => {
  const example = EXAMPLES[status] ?? { description: 'Error', slug: 'error', title: 'Error', detail: 'Error' };
  return {
    description: example.description,
    content: {
      'application/problem+json': {
        schema: { $ref: getSchemaPath(Problem) },
        example: {
          type: `https://toolflow.dev/problems/${example.slug}`,
          title: example.title,
          status,
          detail: example.detail,
          instance: '/api/v1/tools/get_weather',
          request_id: '8f14e45f-ceea-467f-a0e6-0f1c1a2b3c4d',
          ...(example.errors ? { errors: example.errors } : {}),
        },
      },
    },
  };
};

/** Documents application/problem+json error responses for the given statuses, each with an example of its own. */
export const ApiProblemResponses = (...statuses: number[]) =>
  applyDecorators(
    ApiExtraModels(Problem),
    ...statuses.map((status) => ApiResponse({ status, ...problemResponse(status) })),
  );
