import { applyDecorators, Get, HttpCode, type Type, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ApiProblemResponses } from './api-problem-responses';

/** A resource that keeps every saved version (tools, workflows): what its three version routes document. */
export interface VersionedResource {
  /** The route of one item, `:id` included (`':id'` in a controller with a prefix, `'workflows/:id'` without). */
  readonly path: string;
  /** The name in operation ids (`Tool` → `listToolVersions`) and, in lower case, in summaries. */
  readonly name: string;
  readonly summaryType: Type;
  readonly versionType: Type;
  /** What a rollback answers: the item as saved anew. */
  readonly writtenType: Type;
  /** What a rollback makes the next version, e.g. "the definition" (checked again as any save). */
  readonly rollbackSummary: string;
}

/** `GET …/:id/versions`: every version, newest first. */
export const ListVersionsRoute = (resource: VersionedResource) =>
  applyDecorators(
    Get(`${resource.path}/versions`),
    ApiOperation({
      operationId: `list${resource.name}Versions`,
      summary: `Every version of a ${resource.name.toLowerCase()}, newest first`,
    }),
    ApiOkResponse({ type: [resource.summaryType] }),
    ApiProblemResponses(404),
  );

/** `GET …/:id/versions/:version`: one version as it was saved. */
export const GetVersionRoute = (resource: VersionedResource) =>
  applyDecorators(
    Get(`${resource.path}/versions/:version`),
    ApiOperation({
      operationId: `get${resource.name}Version`,
      summary: `One version of a ${resource.name.toLowerCase()}, as it was saved`,
    }),
    ApiOkResponse({ type: resource.versionType }),
    ApiProblemResponses(400, 404),
  );

/** `POST …/:id/rollback`: an earlier version becomes the next one. */
export const RollbackRoute = (resource: VersionedResource) =>
  applyDecorators(
    Post(`${resource.path}/rollback`),
    HttpCode(200),
    ApiOperation({ operationId: `rollback${resource.name}`, summary: resource.rollbackSummary }),
    ApiOkResponse({ type: resource.writtenType }),
    ApiProblemResponses(400, 403, 404, 409),
  );
