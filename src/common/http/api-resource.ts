import { applyDecorators } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { ApiProblemResponses } from './api-problem-responses';

/**
 * Documents a controller of the public API: its tag, the bearer API key every route needs, and the problems
 * every route may answer (401 always, plus `problems`).
 */
export const ApiResource = (tag: string, ...problems: number[]) =>
  applyDecorators(ApiTags(tag), ApiBearerAuth(), ApiProblemResponses(401, ...problems));
