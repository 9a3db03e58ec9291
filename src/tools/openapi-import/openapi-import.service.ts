import { Inject, Injectable } from '@nestjs/common';
import type { Principal } from '../../common/auth/principal';
import { DomainError } from '../../common/errors/domain-error';
import type { OutboundClient } from '../../outbound/outbound-client';
import { ELLIPSIS, truncate } from '../../shared/truncate';
import { isRecord } from '../../shared/is-record';
import { errorMessage } from '../../shared/error-text';
import { ToolExecutionError } from '../../shared/tool-errors';
import { TOOL_IMPLEMENTATIONS, type ToolImplementations } from '../tool-implementations';
import { ToolsService } from '../tools.service';
import { OUTBOUND_CLIENT } from '../../executors/executors.tokens';
import type { HttpAuthConfig } from '../../executors/http/http-tool-config';
import { loadOpenApiDocument } from './load-openapi-document';
import type {
  ImportedToolDto,
  ImportOpenApiDto,
  OpenApiImportResponse,
  SkippedOperationDto,
} from './openapi-import.dto';
import { dialectOf, type ImportOperation, listOperations } from './openapi-operations';
import { operationToTool } from './operation-to-tool';
import { toolNameFor } from './tool-name';

const SENT_BY_THE_API = 'is a request the API sends, not an operation to call';

/** POST /tools/import/openapi: one http tool per operation of an OpenAPI document. */
@Injectable()
export class OpenApiImportService {
  constructor(
    private readonly tools: ToolsService,
    @Inject(OUTBOUND_CLIENT) private readonly outbound: OutboundClient,
    @Inject(TOOL_IMPLEMENTATIONS) private readonly implementations: ToolImplementations,
  ) {}

  async import(input: ImportOpenApiDto, principal: Principal): Promise<OpenApiImportResponse> {
    const auth = await this.checkAuth(input.auth);
    const { document, documentUrl } = await this.load(input);
    const dialect = dialectOf(document);
    const { operations, webhooks } = listOperations(document);
    const selected = this.select(operations, input.operations);
    const skipped: SkippedOperationDto[] = webhooks.map((name) => ({
      operation: `webhook ${name}`,
      reason: `a webhook ${SENT_BY_THE_API}`,
    }));
    const info = isRecord(document.info) ? document.info : {};
    const category =
      typeof info.title === 'string' && info.title.trim() ? truncate(info.title.trim(), 64, ELLIPSIS) : 'openapi';
    const taken = new Set<string>();
    const created: ImportedToolDto[] = [];
    for (const operation of selected) {
      for (const callback of operation.callbacks) {
        skipped.push({ operation: `${operation.key} callback ${callback}`, reason: `a callback ${SENT_BY_THE_API}` });
      }
      const name = toolNameFor(operation, input.prefix ?? '', taken);
      const result = operationToTool(operation, {
        name,
        dialect,
        category,
        baseUrl: baseUrlFor(input.base_url, operation, documentUrl),
        auth,
      });
      if (!result.ok) {
        skipped.push({ operation: operation.key, reason: result.reason });
        continue;
      }
      try {
        created.push(
          input.dry_run
            ? await this.tools.preview(result.tool, principal)
            : await this.tools.create(result.tool, principal),
        );
      } catch (error) {
        if (!(error instanceof DomainError) || !['validation_failed', 'conflict'].includes(error.code)) throw error;
        const details = error.problems.map((problem) => `${problem.field} ${problem.message}`).join('; ');
        skipped.push({ operation: operation.key, reason: details ? `${error.message}: ${details}` : error.message });
      }
    }
    return { created, skipped };
  }

  /** Credentials are checked once, as the http type checks them, so a typo is one 400 rather than a skip per operation. */
  private async checkAuth(auth: Record<string, unknown> | undefined): Promise<HttpAuthConfig | undefined> {
    if (auth === undefined) return undefined;
    const problems = await this.implementations.validateConfig(
      'http',
      { url: 'https://example.com/', auth },
      {
        name: 'openapi_import',
        functionSchema: { type: 'function', function: { name: 'openapi_import', parameters: { type: 'object' } } },
      },
    );
    if (problems.length > 0) {
      throw DomainError.validation(
        problems.map((problem) => ({
          field: problem.path.replace(/^\//, '').replace(/\//g, '.'),
          message: problem.message,
        })),
      );
    }
    return auth as HttpAuthConfig;
  }

  private async load(input: ImportOpenApiDto): Promise<{ document: Record<string, unknown>; documentUrl?: string }> {
    if ((input.document === undefined) === (input.url === undefined)) {
      throw DomainError.validation([{ field: 'document', message: 'give exactly one of document and url' }]);
    }
    if (input.url === undefined) return { document: await loadOpenApiDocument(input.document, 'document') };
    return { document: await loadOpenApiDocument(await this.fetch(input.url), 'url'), documentUrl: input.url };
  }

  private async fetch(url: string): Promise<string> {
    try {
      const response = await this.outbound.request({
        url,
        headers: { accept: 'application/json, application/yaml;q=0.9, text/yaml;q=0.9, */*;q=0.5' },
      });
      if (response.status < 200 || response.status > 299) {
        throw DomainError.validation([{ field: 'url', message: `answered HTTP ${response.status}` }]);
      }
      return response.body.toString('utf8');
    } catch (error) {
      if (error instanceof ToolExecutionError) {
        throw DomainError.validation([{ field: 'url', message: `could not be fetched: ${errorMessage(error)}` }]);
      }
      throw error;
    }
  }

  private select(operations: ImportOperation[], wanted: string[] | undefined): ImportOperation[] {
    if (wanted === undefined) return operations;
    const known = new Set(operations.map((operation) => operation.key));
    const unknown = wanted.filter((key) => !known.has(key));
    if (unknown.length > 0) {
      throw DomainError.validation([
        {
          field: 'operations',
          message: `not in the document: ${unknown.slice(0, 20).join(', ')} (name operations by operationId, or "METHOD /path" when they have none)`,
        },
      ]);
    }
    const chosen = new Set(wanted);
    return operations.filter((operation) => chosen.has(operation.key));
  }
}

/** base_url wins; a relative server URL is read against the URL the document came from. */
const baseUrlFor = (
  baseUrl: string | undefined,
  operation: ImportOperation,
  documentUrl?: string,
): string | undefined => {
  if (baseUrl !== undefined) return baseUrl;
  const server = operation.serverUrl ?? (documentUrl ? '/' : undefined);
  if (server === undefined) return undefined;
  try {
    const resolved = documentUrl ? new URL(server, documentUrl).href : new URL(server).href;
    return /^https?:\/\//i.test(resolved) ? resolved.replace(/\/+$/, '') : undefined;
  } catch {
    return undefined;
  }
};
