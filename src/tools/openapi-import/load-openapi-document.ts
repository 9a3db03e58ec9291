import SwaggerParser from '@apidevtools/swagger-parser';
import { parse as parseYaml } from 'yaml';
import { DomainError } from '../../common/errors/domain-error';
import { errorMessage } from '../../shared/error-text';
import { isRecord } from '../../shared/is-record';
import { truncate, ELLIPSIS } from '../../shared/truncate';

const invalid = (field: string, message: string) => DomainError.validation([{ field, message }]);

/** A `$ref` that leaves the document; never followed (it could read local files or reach the network). */
const firstExternalRef = (value: unknown, seen = new Set<object>()): string | undefined => {
  if (value === null || typeof value !== 'object' || seen.has(value)) return undefined;
  seen.add(value);
  if (!Array.isArray(value) && typeof (value as Record<string, unknown>).$ref === 'string') {
    const ref = (value as Record<string, string>).$ref;
    if (!ref.startsWith('#')) return ref;
  }
  for (const child of Object.values(value)) {
    const found = firstExternalRef(child, seen);
    if (found !== undefined) return found;
  }
  return undefined;
};

/**
 * Parses (JSON or YAML), validates and dereferences an OpenAPI 2.0/3.0/3.1 document with swagger-parser.
 * Only references inside the document are resolved; circular ones stay as object cycles. `field` names the
 * request field the document came from in errors.
 */
export const loadOpenApiDocument = async (source: unknown, field: string): Promise<Record<string, unknown>> => {
  let document = source;
  if (typeof source === 'string') {
    try {
      document = parseYaml(source, { maxAliasCount: 1000 }) as unknown;
    } catch (error) {
      throw invalid(field, `is neither JSON nor YAML: ${truncate(errorMessage(error), 300, ELLIPSIS)}`);
    }
  }
  if (!isRecord(document) || (typeof document.openapi !== 'string' && typeof document.swagger !== 'string')) {
    throw invalid(field, 'must be an OpenAPI 3.x or Swagger 2.0 document (an "openapi" or "swagger" version field)');
  }
  const external = firstExternalRef(document);
  if (external !== undefined) {
    throw invalid(
      field,
      `has the external $ref "${truncate(external, 200, ELLIPSIS)}"; bundle it into one document first`,
    );
  }
  try {
    const api = await SwaggerParser.validate(document as never, {
      resolve: { external: false, file: false, http: false },
      dereference: { circular: true },
    });
    return api as unknown as Record<string, unknown>;
  } catch (error) {
    throw invalid(field, `is not a valid OpenAPI document: ${truncate(errorMessage(error), 500, ELLIPSIS)}`);
  }
};
