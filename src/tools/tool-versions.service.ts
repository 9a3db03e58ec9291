import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, Repository } from 'typeorm';
import type { Principal } from '../common/auth/principal';
import { DomainError } from '../common/errors/domain-error';
import type { ToolVersionResponse, ToolVersionSummary } from './tool.dto';
import { ToolEntity } from './tool.entity';
import { ToolVersionEntity } from './tool-version.entity';
import { TOOL_IMPLEMENTATIONS, type ToolImplementations } from './tool-implementations';
import { findVisibleTool } from './tool-rows';
import type { PinnedTool, StoredTool, ToolPin } from './stored-tool';

/** The saved versions of tools: every write stores one, immutable; runs read the versions they pinned. */
@Injectable()
export class ToolVersionsService {
  constructor(
    @InjectRepository(ToolEntity) private readonly tools: Repository<ToolEntity>,
    @InjectRepository(ToolVersionEntity) private readonly versions: Repository<ToolVersionEntity>,
    @Inject(TOOL_IMPLEMENTATIONS) private readonly implementations: ToolImplementations,
  ) {}

  /** Every version of a tool, newest first. */
  async listVersions(idOrName: string, principal: Principal): Promise<ToolVersionSummary[]> {
    const tool = await findVisibleTool(this.tools, idOrName, principal);
    const rows = await this.versions.find({ where: { toolId: tool.id }, order: { version: 'DESC' } });
    return rows.map((row) => ({
      version: row.version,
      name: row.name,
      description: row.description,
      implementation_type: row.implementationType,
      effect: row.effect,
      requires_approval: row.requiresApproval,
      created_at: row.createdAt.toISOString(),
    }));
  }

  async getVersion(idOrName: string, version: number, principal: Principal): Promise<ToolVersionResponse> {
    const tool = await findVisibleTool(this.tools, idOrName, principal);
    const row = await this.find(tool, version);
    return {
      tool_id: row.toolId,
      version: row.version,
      name: row.name,
      description: row.description,
      category: row.category,
      function_schema: row.functionSchema as unknown as Record<string, unknown>,
      implementation_type: row.implementationType,
      implementation_config: this.implementations.mask(row.implementationType, row.implementationConfig),
      effect: row.effect,
      requires_approval: row.requiresApproval,
      created_at: row.createdAt.toISOString(),
    };
  }

  /**
   * The versions a run pinned, as they were saved, whatever changed since (schema, implementation, enabled);
   * a pin whose tool has been deleted is left out.
   */
  async findPinned(pins: readonly ToolPin[]): Promise<PinnedTool[]> {
    if (pins.length === 0) return [];
    const [rows, current] = await Promise.all([
      this.versions.find({ where: pins.map((pin) => ({ toolId: pin.id, version: pin.version })) }),
      this.tools.find({
        select: { id: true, userId: true, isPublic: true, enabled: true },
        where: { id: In([...new Set(pins.map((pin) => pin.id))]) },
      }),
    ]);
    const byId = new Map(current.map((tool) => [tool.id, tool]));
    return rows.flatMap((row) => {
      const tool = byId.get(row.toolId);
      if (!tool) return [];
      const stored: StoredTool = {
        id: row.toolId,
        name: row.name,
        version: row.version,
        userId: tool.userId,
        isPublic: tool.isPublic,
        enabled: tool.enabled,
        effect: row.effect,
        requiresApproval: row.requiresApproval,
        functionSchema: row.functionSchema,
        implementationType: row.implementationType,
        implementationConfig: row.implementationConfig,
      };
      return [{ tool: stored, category: row.category }];
    });
  }

  /** One saved version of a tool; 404 naming both when there is no such version. */
  async find(tool: ToolEntity, version: number): Promise<ToolVersionEntity> {
    const row = await this.versions.findOneBy({ toolId: tool.id, version });
    if (!row) throw DomainError.notFound(`Version ${version} of tool`, tool.name);
    return row;
  }
}
