import { applyDecorators } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';

const DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid request: `errors` lists each field and the reason',
  401: 'Missing or invalid API key',
  403: 'The API key may not do this',
  404: 'Not found',
  409: 'Conflict (e.g. the name is taken)',
  412: 'If-Match names an older version: read the row again and retry',
  413: 'Request body too large',
  422: 'The tool arguments are invalid',
};

const problemSchema = {
  type: 'object',
  properties: {
    type: { type: 'string', example: 'https://toolflow.dev/problems/validation-failed' },
    title: { type: 'string', example: 'Bad Request' },
    status: { type: 'integer', example: 400 },
    detail: { type: 'string', example: 'The request is invalid' },
    instance: { type: 'string', example: '/api/v1/tools' },
    errors: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          field: { type: 'string', example: 'function_schema.function.parameters.type' },
          message: { type: 'string', example: 'the root of parameters must be type "object"' },
        },
      },
    },
  },
};

/** Documents application/problem+json error responses for the given statuses. */
export const ApiProblemResponses = (...statuses: number[]) =>
  applyDecorators(
    ...statuses.map((status) =>
      ApiResponse({
        status,
        description: DESCRIPTIONS[status] ?? 'Error',
        content: { 'application/problem+json': { schema: problemSchema } },
      }),
    ),
  );
