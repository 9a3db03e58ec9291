import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { EntityManager, Repository } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { isAdmin, type Principal } from '../common/auth/principal';
import { AuditService } from '../audit/audit.service';
import { DomainError, type FieldProblem } from '../common/errors/domain-error';
import { isDuplicateKey, namesTaken, type TakenNames } from '../common/owned-queries';
import type { WorkflowDefinition } from './definition.schema';
import { DefinitionChecker } from './definition-checker.service';
import type { WorkflowBody } from './workflow-body';
import { WorkflowEntity } from './workflow.entity';
import { workflowNameTaken } from './workflow-rows';
import { recordWorkflowVersion } from './workflow-version-row';

/** A workflow an import has checked and stores in its transaction: a new one, or the next version of the caller's. */
export interface PlannedWorkflow {
  readonly id: string;
  readonly name: string;
  readonly userId: string;
  /** The caller's workflow this one replaces; null: a new workflow. */
  readonly replaces: { readonly version: number } | null;
  readonly definition: WorkflowDefinition;
  readonly isPublic: boolean;
  readonly enabled: boolean;
  /** The user whose import makes the new version. */
  readonly savedBy: string;
  /** What the import reports about it: a provider or model this service lacks, a deprecated field read. */
  readonly warnings: readonly FieldProblem[];
}

/** Workflows an import (a bundle) brings: checked first, all of them, then stored in the importer's transaction. */
@Injectable()
export class WorkflowImportService {
  constructor(
    @InjectRepository(WorkflowEntity) private readonly workflows: Repository<WorkflowEntity>,
    private readonly checker: DefinitionChecker,
    private readonly audit: AuditService,
  ) {}

  /** Names an import may clash with: the caller's own workflows and the public ones, each name to its id. */
  namesTaken(principal: Principal): Promise<TakenNames> {
    return namesTaken(this.workflows, principal);
  }

  /**
   * Checks a workflow as POST (`replacing` null: a new one with id `newId`) or as a PUT of the caller's workflow
   * `replacing` would, without storing it; `providedTools` are tools the same import stores.
   */
  async plan(
    body: WorkflowBody,
    principal: Principal,
    target: { replacing: string | null; newId: string; providedTools: ReadonlySet<string> },
  ): Promise<PlannedWorkflow> {
    const { replacing, newId, providedTools } = target;
    const existing = replacing === null ? null : await this.workflows.findOneByOrFail({ id: replacing });
    const isPublic = body.isPublic ?? existing?.isPublic ?? false;
    if (isPublic && !existing?.isPublic && !isAdmin(principal)) {
      throw DomainError.validation([{ field: 'is_public', message: 'only admins make workflows public' }]);
    }
    const { definition, warnings = [] } = await this.checker.check(body.definition, principal, body.field, {
      providedTools,
      unconfigured: 'warn',
    });
    return {
      id: existing?.id ?? newId,
      name: definition.name,
      userId: existing?.userId ?? principal.userId,
      replaces: existing && { version: existing.version },
      definition,
      isPublic,
      enabled: body.enabled ?? existing?.enabled ?? true,
      savedBy: principal.userId,
      warnings,
    };
  }

  /**
   * Stores checked workflows inside the caller's transaction: all of them or, when one fails, none; each with its
   * audit record naming `principal` (the importing key).
   */
  async storePlanned(manager: EntityManager, planned: readonly PlannedWorkflow[], principal: Principal): Promise<void> {
    for (const workflow of planned) {
      const now = new Date();
      const fields = {
        name: workflow.name,
        description: workflow.definition.description ?? '',
        definition: workflow.definition,
        isPublic: workflow.isPublic,
        publicName: workflow.isPublic ? workflow.name : null,
        enabled: workflow.enabled,
        updatedAt: now,
      };
      try {
        const version = workflow.replaces ? workflow.replaces.version + 1 : 1;
        if (workflow.replaces) {
          const changed = await manager.update(
            WorkflowEntity,
            { id: workflow.id, version: workflow.replaces.version },
            { ...fields, version } as QueryDeepPartialEntity<WorkflowEntity>,
          );
          if (changed.affected === 0) {
            throw DomainError.conflict(`Workflow "${workflow.name}" was changed by another request; import again`);
          }
        } else {
          const row = { ...fields, id: workflow.id, userId: workflow.userId, version, createdAt: now };
          await manager.insert(WorkflowEntity, row as QueryDeepPartialEntity<WorkflowEntity>);
        }
        await recordWorkflowVersion(manager, { ...fields, id: workflow.id, version }, workflow.savedBy, now);
        await this.audit.record(manager, principal, {
          action: workflow.replaces ? 'update' : 'create',
          type: 'workflow',
          id: workflow.id,
          name: workflow.name,
          before: workflow.replaces?.version ?? null,
          after: version,
        });
      } catch (error) {
        if (isDuplicateKey(error)) throw workflowNameTaken(workflow.name, workflow.isPublic);
        throw error;
      }
    }
  }
}
