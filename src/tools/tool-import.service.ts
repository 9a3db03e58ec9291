import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { type EntityManager, Repository } from 'typeorm';
import type { Principal } from '../common/auth/principal';
import { AuditService } from '../audit/audit.service';
import { DomainError } from '../common/errors/domain-error';
import { isDuplicateKey, namesTaken, type TakenNames } from '../common/owned-queries';
import { dropMaskedValues } from '../shared/secrets';
import type { CreateToolDto } from './tool.dto';
import { ToolEntity } from './tool.entity';
import { ToolVersionEntity } from './tool-version.entity';
import { TOOL_IMPLEMENTATIONS, type ToolImplementations } from './tool-implementations';
import { ToolFieldsService } from './tool-fields.service';
import { asRow, nameTaken, snapshotRow, type ToolFields } from './tool-rows';

/** A tool an import has checked and stores in its transaction: a new one, or a new version of the caller's own. */
export interface PlannedTool {
  readonly id: string;
  readonly name: string;
  readonly userId: string;
  /** The caller's tool this one becomes the next version of; null: a new tool. */
  readonly replaces: { readonly version: number } | null;
  /** Config paths of secrets that came masked and are left unset (they need a PUT or PATCH). */
  readonly unsetSecrets: string[];
  readonly fields: ToolFields;
}

/** Tools an import (a bundle) brings: checked first, all of them, then stored in the importer's transaction. */
@Injectable()
export class ToolImportService {
  constructor(
    @InjectRepository(ToolEntity) private readonly tools: Repository<ToolEntity>,
    @Inject(TOOL_IMPLEMENTATIONS) private readonly implementations: ToolImplementations,
    private readonly fields: ToolFieldsService,
    private readonly audit: AuditService,
  ) {}

  /** The names an import may clash with. */
  namesTaken(principal: Principal): Promise<TakenNames> {
    return namesTaken(this.tools, principal);
  }

  /**
   * Checks a tool as POST (`replacing` null) or as a PUT of the caller's tool `replacing` would, without storing it.
   * A masked secret is never stored as the mask: a replace of the same type keeps the stored value, otherwise the
   * secret is left unset (with the object that holds it when the config is invalid without it) and named.
   */
  async plan(input: CreateToolDto, principal: Principal, replacing: string | null): Promise<PlannedTool> {
    const existing = replacing === null ? null : await this.tools.findOneByOrFail({ id: replacing });
    let config = input.implementation_config ?? {};
    if (existing?.implementationType === input.implementation_type) {
      config = this.implementations.restoreSecrets(input.implementation_type, config, existing.implementationConfig);
    }
    const { value, dropped } = dropMaskedValues(config);
    const plan = async (
      implementationConfig: Record<string, unknown>,
      unsetSecrets: string[],
    ): Promise<PlannedTool> => {
      const { fields } = await this.fields.build(
        { ...input, implementation_config: implementationConfig },
        principal,
        existing,
      );
      return {
        id: existing?.id ?? randomUUID(),
        name: fields.name,
        userId: existing?.userId ?? principal.userId,
        replaces: existing && { version: existing.version },
        unsetSecrets,
        fields,
      };
    };
    try {
      return await plan(value, dropped);
    } catch (error) {
      const holders = [...new Set(dropped.filter((path) => /[.[]/.test(path)).map((path) => path.split(/[.[]/)[0]))];
      if (!(error instanceof DomainError) || holders.length === 0) throw error;
      return plan(Object.fromEntries(Object.entries(value).filter(([key]) => !holders.includes(key))), holders);
    }
  }

  /**
   * Stores checked tools inside the caller's transaction: all of them or, when one fails, none; each with its audit
   * record naming `principal` (the importing key).
   */
  async storePlanned(manager: EntityManager, planned: readonly PlannedTool[], principal: Principal): Promise<void> {
    for (const tool of planned) {
      const now = new Date();
      const before = tool.replaces?.version ?? null;
      try {
        if (tool.replaces) {
          const version = tool.replaces.version + 1;
          const changed = await manager.update(
            ToolEntity,
            { id: tool.id, version: tool.replaces.version },
            asRow({ ...tool.fields, version, updatedAt: now }),
          );
          if (changed.affected === 0) {
            throw DomainError.conflict(`Tool "${tool.name}" was changed by another request; import again`);
          }
          await manager.insert(ToolVersionEntity, snapshotRow(tool.id, version, tool.fields, now));
        } else {
          const row = {
            ...tool.fields,
            id: tool.id,
            userId: tool.userId,
            useCount: 0,
            version: 1,
            createdAt: now,
            updatedAt: now,
          };
          await manager.insert(ToolEntity, asRow(row));
          await manager.insert(ToolVersionEntity, snapshotRow(tool.id, 1, tool.fields, now));
        }
        await this.audit.record(manager, principal, {
          action: before === null ? 'create' : 'update',
          type: 'tool',
          id: tool.id,
          name: tool.name,
          before,
          after: (before ?? 0) + 1,
        });
      } catch (error) {
        if (isDuplicateKey(error)) throw nameTaken(tool.name, tool.fields.isPublic);
        throw error;
      }
    }
  }
}
