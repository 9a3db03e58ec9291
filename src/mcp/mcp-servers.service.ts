import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { AuditService } from '../audit/audit.service';
import { InjectRepository } from '@nestjs/typeorm';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { randomUUID } from 'node:crypto';
import { IsNull, Repository } from 'typeorm';
import { isAdmin, type Principal } from '../common/auth/principal';
import { DomainError, type FieldProblem } from '../common/errors/domain-error';
import type { Page, PageQuery } from '../common/http/pagination';
import { byIdOrName, isDuplicateKey } from '../common/owned-queries';
import type { McpToolCall, McpToolCaller } from '../executors/mcp/mcp-tool-caller';
import { errorMessage } from '../shared/error-text';
import { maskSecrets, redactUrl } from '../shared/secrets';
import { ToolExecutionError, ToolForbiddenError } from '../shared/tool-errors';
import type { StoredTool } from '../tools/stored-tool';
import type { ToolResponse } from '../tools/tool.dto';
import { ToolsService } from '../tools/tools.service';
import { McpConnections } from './mcp-connections';
import type {
  CreateMcpServerDto,
  McpServerResponse,
  McpServerSyncResponse,
  McpServerWriteResponse,
  SkippedMcpToolDto,
} from './mcp-server.dto';
import { McpServerEntity } from './mcp-server.entity';
import { effectOf, importDescription, importParameters, mcpToolName } from './mcp-tool-import';
import { MCP_CONNECTIONS } from './mcp.tokens';

const configOf = (tool: StoredTool) => tool.implementationConfig as { server?: string; tool?: string };

const findCause = <T>(error: unknown, type: abstract new (...args: never[]) => T): T | undefined => {
  for (let current: unknown = error; current instanceof Error; current = current.cause) {
    if (current instanceof type) return current;
  }
  return undefined;
};

/** What a tool row should hold for one server tool, or why the server tool cannot be one. */
type Planned =
  | {
      ok: true;
      remote: Tool;
      name: string;
      description: string;
      effect: StoredTool['effect'];
      functionSchema: Record<string, unknown>;
    }
  | { ok: false; remote: Tool; reason: string };

/** Registered MCP servers: connecting, importing their tools as `mcp` tools, and calling them (McpToolCaller). */
@Injectable()
export class McpServersService implements McpToolCaller, OnApplicationShutdown {
  constructor(
    @InjectRepository(McpServerEntity) private readonly servers: Repository<McpServerEntity>,
    private readonly tools: ToolsService,
    @Inject(MCP_CONNECTIONS) private readonly connections: McpConnections,
    private readonly audit: AuditService,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    await this.connections.closeAll();
  }

  async create(input: CreateMcpServerDto, principal: Principal): Promise<McpServerWriteResponse> {
    this.checkInput(input, principal);
    if (await this.servers.existsBy({ name: input.name, userId: principal.userId })) {
      throw DomainError.conflict(`An MCP server named "${input.name}" already exists`, 'name');
    }
    const now = new Date();
    const entity = this.servers.create({
      id: randomUUID(),
      name: input.name,
      transport: input.transport,
      command: input.command ?? null,
      args: input.args ?? null,
      env: input.env ?? null,
      url: input.url ?? null,
      headers: input.headers ?? null,
      userId: principal.userId,
      createdAt: now,
      updatedAt: now,
      syncedAt: now,
      vanishedTools: null,
      syncDisabledTools: null,
    });
    const remote = await this.listRemoteTools(entity);
    try {
      await this.servers.insert(entity);
      await this.audit.record(this.servers.manager, principal, {
        action: 'create',
        type: 'mcp_server',
        id: entity.id,
        name: entity.name,
      });
    } catch (error) {
      await this.connections.close(entity.id);
      if (isDuplicateKey(error))
        throw DomainError.conflict(`An MCP server named "${input.name}" already exists`, 'name');
      throw error;
    }
    const result = await this.applyTools(entity, remote, principal);
    return { server: this.toResponse(entity), tools: result.tools, skipped: result.skipped };
  }

  async list(query: PageQuery, principal: Principal): Promise<Page<McpServerResponse>> {
    const [entities, total] = await this.servers.findAndCount({
      where: isAdmin(principal) ? {} : { userId: principal.userId },
      order: { name: 'ASC' },
      skip: (query.page - 1) * query.page_size,
      take: query.page_size,
    });
    return {
      items: entities.map((entity) => this.toResponse(entity)),
      page: query.page,
      page_size: query.page_size,
      total,
    };
  }

  /** Makes the server's tools match what it offers now: adds new ones, updates changed ones, disables vanished ones. */
  async sync(idOrName: string, principal: Principal): Promise<McpServerSyncResponse> {
    const entity = await this.findOwned(idOrName, principal);
    // A fresh connection: the server may have been upgraded or restarted with other tools.
    await this.connections.close(entity.id);
    const remote = await this.listRemoteTools(entity);
    const { vanished, syncDisabled, ...result } = await this.applyTools(entity, remote, principal);
    entity.syncedAt = new Date();
    entity.updatedAt = entity.syncedAt;
    entity.vanishedTools = vanished;
    entity.syncDisabledTools = syncDisabled;
    await this.servers.update(
      { id: entity.id },
      {
        syncedAt: entity.syncedAt,
        updatedAt: entity.updatedAt,
        vanishedTools: vanished,
        syncDisabledTools: syncDisabled,
      },
    );
    await this.audit.record(this.servers.manager, principal, {
      action: 'sync',
      type: 'mcp_server',
      id: entity.id,
      name: entity.name,
    });
    return { server: this.toResponse(entity), ...result };
  }

  /** Deletes the server and every tool made from it; 409 while stored workflows use one of them, unless `force`. */
  async remove(idOrName: string, principal: Principal, force = false): Promise<void> {
    const entity = await this.findOwned(idOrName, principal);
    const tools = await this.toolsOf(entity);
    await this.tools.removeMany(
      tools.map((tool) => tool.id),
      this.ownerOf(entity, principal),
      `A tool of MCP server "${entity.name}"`,
      force,
    );
    await this.servers.delete({ id: entity.id });
    await this.audit.record(this.servers.manager, principal, {
      action: 'delete',
      type: 'mcp_server',
      id: entity.id,
      name: entity.name,
    });
    await this.connections.close(entity.id);
  }

  async callTool(call: McpToolCall): Promise<CallToolResult> {
    const entity = await this.servers.findOneBy({ name: call.server, userId: call.ownerId ?? IsNull() });
    if (!entity) {
      throw new ToolExecutionError(
        `MCP server "${call.server}" is not registered for this tool's owner; register it again (POST /api/v1/mcp-servers)`,
      );
    }
    try {
      return await this.connections.callTool(entity, call.tool, call.arguments, {
        signal: call.signal,
        timeoutMs: call.timeoutMs,
        retryable: call.retryable,
      });
    } catch (error) {
      if (error instanceof ToolExecutionError) throw error;
      const message = errorMessage(error, { descriptive: true });
      if (error instanceof McpError) throw new ToolExecutionError(`MCP server "${call.server}" answered: ${message}`);
      throw new ToolExecutionError(message);
    }
  }

  private checkInput(input: CreateMcpServerDto, principal: Principal): void {
    if (input.transport === 'stdio' && !isAdmin(principal)) {
      throw new DomainError('forbidden', 'This API key may not do this', [
        { field: 'transport', message: 'only admins register stdio MCP servers (they start a process here)' },
      ]);
    }
    const problems: FieldProblem[] = [];
    const misplaced = (fields: Array<keyof CreateMcpServerDto>) => {
      for (const field of fields) {
        if (input[field] !== undefined) {
          problems.push({ field, message: `is not used by the ${input.transport} transport` });
        }
      }
    };
    if (input.transport === 'stdio') {
      if (!input.command?.trim()) problems.push({ field: 'command', message: 'is required for the stdio transport' });
      misplaced(['url', 'headers']);
    } else {
      if (!input.url) problems.push({ field: 'url', message: 'is required for the http transport' });
      else if (!/^https?:\/\//i.test(input.url) || !URL.canParse(input.url)) {
        problems.push({ field: 'url', message: 'must be an absolute http or https URL' });
      }
      misplaced(['command', 'args', 'env']);
    }
    if (problems.length > 0) throw DomainError.validation(problems);
  }

  private async listRemoteTools(entity: McpServerEntity): Promise<Tool[]> {
    try {
      return await this.connections.listTools(entity);
    } catch (error) {
      await this.connections.close(entity.id);
      const field = entity.transport === 'stdio' ? 'command' : 'url';
      const blocked = findCause(error, ToolForbiddenError);
      if (blocked) throw DomainError.validation([{ field, message: blocked.message }]);
      throw new DomainError('unprocessable', `Could not list the tools of MCP server "${entity.name}"`, [
        { field, message: errorMessage(error, { descriptive: true }) },
      ]);
    }
  }

  private plan(entity: McpServerEntity, remote: Tool): Planned {
    const parameters = importParameters(remote.inputSchema);
    if (!parameters.ok) return { ok: false, remote, reason: `inputSchema: ${parameters.reason}` };
    const name = mcpToolName(entity.name, remote.name);
    const description = importDescription(entity.name, remote, parameters.notes);
    return {
      ok: true,
      remote,
      name,
      description,
      effect: effectOf(remote.annotations),
      functionSchema: { type: 'function', function: { name, description, parameters: parameters.parameters } },
    };
  }

  private async applyTools(entity: McpServerEntity, remote: readonly Tool[], principal: Principal) {
    const owner = this.ownerOf(entity, principal);
    const existing = new Map((await this.toolsOf(entity)).map((tool) => [configOf(tool).tool ?? '', tool]));
    const tools: ToolResponse[] = [];
    const skipped: SkippedMcpToolDto[] = [];
    const added: string[] = [];
    const updated: string[] = [];
    const disabled: string[] = [];
    const disabledBySync = new Set(entity.syncDisabledTools ?? []);
    const vanished: string[] = [];
    const syncDisabled: string[] = [];
    // Still offered but not importable now: an earlier import of it stays as it was (schema, enabled), and one
    // a sync disabled stays marked so, so that a later sync that can import it enables it again.
    const skip = (remoteName: string, reason: string, current: StoredTool | undefined) => {
      skipped.push({ tool: remoteName, reason, kept_tool: current?.name ?? null });
      if (current && !current.enabled && disabledBySync.has(remoteName)) syncDisabled.push(remoteName);
    };
    for (const planned of remote.map((tool) => this.plan(entity, tool))) {
      const current = existing.get(planned.remote.name);
      existing.delete(planned.remote.name);
      if (!planned.ok) {
        skip(planned.remote.name, planned.reason, current);
        continue;
      }
      try {
        if (!current) {
          tools.push(await this.tools.create(this.toolInput(entity, planned), owner));
          added.push(planned.name);
        } else if (this.differs(current, planned) || (!current.enabled && disabledBySync.has(planned.remote.name))) {
          // Back on the server: enabled again only when a sync disabled it; one disabled by hand stays so.
          const back = !current.enabled && disabledBySync.has(planned.remote.name);
          const changes = this.toolInput(entity, { ...planned, name: current.name });
          tools.push(await this.tools.update(current.id, back ? { ...changes, enabled: true } : changes, owner));
          updated.push(current.name);
        } else {
          tools.push(await this.tools.get(current.id, owner));
        }
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        const details = error.problems.map((problem) => `${problem.field}: ${problem.message}`).join('; ');
        skip(planned.remote.name, details || error.message, current);
      }
    }
    // Every tool of the server it no longer offers is gone, whoever disabled it and whenever.
    for (const [remoteName, tool] of existing) {
      vanished.push(remoteName);
      if (tool.enabled) {
        await this.tools.update(tool.id, { enabled: false }, owner);
        disabled.push(tool.name);
        syncDisabled.push(remoteName);
      } else if (disabledBySync.has(remoteName)) syncDisabled.push(remoteName);
    }
    return { tools, skipped, added, updated, disabled, vanished: vanished.sort(), syncDisabled };
  }

  private toolInput(entity: McpServerEntity, planned: Extract<Planned, { ok: true }>) {
    const fn = planned.functionSchema.function as Record<string, unknown>;
    return {
      name: planned.name,
      description: planned.description,
      category: 'mcp',
      function_schema: { ...planned.functionSchema, function: { ...fn, name: planned.name } },
      implementation_type: 'mcp' as const,
      implementation_config: { server: entity.name, tool: planned.remote.name },
      effect: planned.effect,
    };
  }

  private differs(current: StoredTool, planned: Extract<Planned, { ok: true }>): boolean {
    const fn = planned.functionSchema.function as { description: string; parameters: unknown };
    return (
      current.effect !== planned.effect ||
      current.functionSchema.function.description !== fn.description ||
      JSON.stringify(current.functionSchema.function.parameters) !== JSON.stringify(fn.parameters)
    );
  }

  private async toolsOf(entity: McpServerEntity): Promise<StoredTool[]> {
    const all = await this.tools.findByImplementationType('mcp');
    return all.filter((tool) => tool.userId === entity.userId && configOf(tool).server === entity.name);
  }

  /** Tools of a server always belong to the server's owner, also when an admin syncs or deletes it. */
  private ownerOf(entity: McpServerEntity, principal: Principal): Principal {
    return { userId: entity.userId ?? principal.userId, role: 'user', keyId: principal.keyId };
  }

  private async findOwned(idOrName: string, principal: Principal): Promise<McpServerEntity> {
    const key = byIdOrName(idOrName);
    const rows = await this.servers.findBy(key);
    // By name: the caller's own server first; admins may also reach another owner's.
    const entity = rows.find((row) => row.userId === principal.userId) ?? (isAdmin(principal) ? rows[0] : undefined);
    if (!entity || (!isAdmin(principal) && entity.userId !== principal.userId)) {
      throw DomainError.notFound('MCP server', idOrName);
    }
    return entity;
  }

  private toResponse(entity: McpServerEntity): McpServerResponse {
    return {
      id: entity.id,
      name: entity.name,
      transport: entity.transport,
      command: entity.command,
      args: entity.args ?? [],
      env: maskSecrets(entity.env ?? {}),
      url: entity.url === null ? null : redactUrl(entity.url),
      headers: maskSecrets(entity.headers ?? {}),
      user_id: entity.userId,
      connected: this.connections.isConnected(entity.id),
      created_at: entity.createdAt.toISOString(),
      updated_at: entity.updatedAt.toISOString(),
      synced_at: entity.syncedAt?.toISOString() ?? null,
      vanished_tools: entity.vanishedTools ?? [],
    };
  }
}
