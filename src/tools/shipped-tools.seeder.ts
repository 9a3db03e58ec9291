import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { IsNull, Repository } from 'typeorm';
import { AuditService, SYSTEM_ACTOR } from '../audit/audit.service';
import { isDuplicateKey } from '../common/owned-queries';
import { ToolEntity } from './tool.entity';
import { ToolVersionEntity } from './tool-version.entity';
import { TOOL_IMPLEMENTATIONS, type ShippedTool, type ToolImplementations } from './tool-implementations';
import { asRow, requiresApprovalByDefault, snapshotRow } from './tool-rows';

/**
 * Seeds every tool the code ships (builtins) as a public one at start; a seed nobody has edited becomes a new
 * version when the code's schema, description or effect changes. Several processes starting at once write each
 * seed and each version once.
 */
@Injectable()
export class ShippedToolsSeeder implements OnApplicationBootstrap {
  private readonly logger = new Logger(ShippedToolsSeeder.name);

  constructor(
    @InjectRepository(ToolEntity) private readonly tools: Repository<ToolEntity>,
    @InjectRepository(ToolVersionEntity) private readonly versions: Repository<ToolVersionEntity>,
    @Inject(TOOL_IMPLEMENTATIONS) private readonly implementations: ToolImplementations,
    private readonly audit: AuditService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    for (const shipped of this.implementations.shippedTools()) {
      const schema = shipped.functionSchema;
      const existing = await this.tools.findOneBy({ name: shipped.name, userId: IsNull() });
      const now = new Date();
      if (!existing) {
        try {
          const id = randomUUID();
          // Both rows or neither: a tool without its version 1 could not be pinned by a run.
          await this.tools.manager.transaction(async (manager) => {
            await manager.insert(
              ToolEntity,
              asRow({
                id,
                name: shipped.name,
                description: shipped.description,
                category: shipped.category,
                functionSchema: schema,
                implementationType: shipped.implementationType,
                implementationConfig: {},
                isPublic: true,
                publicName: shipped.name,
                enabled: true,
                effect: shipped.effect,
                requiresApproval: requiresApprovalByDefault(shipped.effect),
                userId: null,
                useCount: 0,
                version: 1,
                createdAt: now,
                updatedAt: now,
              }),
            );
            await manager.insert(
              ToolVersionEntity,
              seededRow(
                id,
                1,
                { ...shipped, implementationConfig: {}, requiresApproval: requiresApprovalByDefault(shipped.effect) },
                now,
              ),
            );
            const change = { action: 'create', type: 'tool', id, name: shipped.name, after: 1 } as const;
            await this.audit.record(manager, SYSTEM_ACTOR, change);
          });
        } catch (error) {
          if (!isDuplicateKey(error)) throw error;
        }
      } else if (existing.implementationType === shipped.implementationType && differs(existing, shipped)) {
        await this.refresh(existing, shipped);
      }
    }
  }

  /**
   * A builtin whose current version the seeder wrote follows the code as its next version; the version a run may
   * have pinned stays as it was. One a person has edited since is left as they made it.
   */
  private async refresh(existing: ToolEntity, shipped: ShippedTool): Promise<void> {
    const current = await this.versions.findOneBy({ toolId: existing.id, version: existing.version });
    if (!current?.seeded) return;
    const now = new Date();
    const fields = {
      functionSchema: shipped.functionSchema,
      description: shipped.description,
      effect: shipped.effect,
      requiresApproval: requiresApprovalByDefault(shipped.effect),
    };
    const next = existing.version + 1;
    let written = false;
    try {
      written = await this.tools.manager.transaction(async (manager) => {
        const changed = await manager.update(
          ToolEntity,
          { id: existing.id, version: existing.version },
          asRow({ ...fields, version: next, updatedAt: now }),
        );
        if (changed.affected === 0) return false;
        await manager.insert(ToolVersionEntity, seededRow(existing.id, next, { ...existing, ...fields }, now));
        await this.audit.record(manager, SYSTEM_ACTOR, {
          action: 'update',
          type: 'tool',
          id: existing.id,
          name: existing.name,
          before: existing.version,
          after: next,
        });
        return true;
      });
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
    }
    // Otherwise another process starting with the same code wrote that version first.
    if (!written) return;
    this.logger.log(`Builtin ${shipped.name} changed with the code: now version ${next}`);
  }
}

const differs = (existing: ToolEntity, shipped: ShippedTool): boolean =>
  JSON.stringify(existing.functionSchema) !== JSON.stringify(shipped.functionSchema) ||
  existing.description !== shipped.description ||
  existing.effect !== shipped.effect;

const seededRow = (...args: Parameters<typeof snapshotRow>) => ({ ...snapshotRow(...args), seeded: true });
