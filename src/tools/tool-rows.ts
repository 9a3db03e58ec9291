import { randomUUID } from 'node:crypto';
import type { Repository } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { isVisibleTo, byIdOrName, pickByName } from '../common/owned-queries';
import type { Principal } from '../common/auth/principal';
import { DomainError } from '../common/errors/domain-error';
import type { ToolEffect } from '../shared/tool-types';
import type { ToolEntity } from './tool.entity';
import type { ToolVersionEntity } from './tool-version.entity';

// TypeORM's deep-partial type cannot follow JSON columns typed as open records.
export const asRow = (row: Partial<ToolEntity>) => row as QueryDeepPartialEntity<ToolEntity>;

/** What a tool version keeps of the tool. */
type Snapshot = Pick<
  ToolEntity,
  | 'name'
  | 'description'
  | 'category'
  | 'functionSchema'
  | 'implementationType'
  | 'implementationConfig'
  | 'effect'
  | 'requiresApproval'
>;

/** The fields a write sets, checked by ToolFieldsService. */
export type ToolFields = Snapshot & Pick<ToolEntity, 'isPublic' | 'publicName' | 'enabled'>;

export const snapshotRow = (toolId: string, version: number, tool: Snapshot, at: Date) =>
  ({
    id: randomUUID(),
    toolId,
    version,
    name: tool.name,
    description: tool.description,
    category: tool.category,
    functionSchema: tool.functionSchema,
    implementationType: tool.implementationType,
    implementationConfig: tool.implementationConfig,
    effect: tool.effect,
    requiresApproval: tool.requiresApproval,
    createdAt: at,
  }) as QueryDeepPartialEntity<ToolVersionEntity>;

/** `requires_approval` when a tool does not say: dangerous tools wait for a person. */
export const requiresApprovalByDefault = (effect: ToolEffect): boolean => effect === 'dangerous';

/** Names are unique per owner and, for public tools, among public tools; other users' private names never clash. */
export const nameTaken = (name: string, isPublic: boolean): DomainError =>
  DomainError.conflict(
    isPublic
      ? `A tool named "${name}" already exists among your tools or the public ones`
      : `You already have a tool named "${name}"`,
    'name',
  );

/** By id, or by name: the caller's own tool first, then the public one; one the caller may not see is a 404. */
export const findVisibleTool = async (
  tools: Repository<ToolEntity>,
  idOrName: string,
  principal: Principal,
): Promise<ToolEntity> => {
  const key = byIdOrName(idOrName);
  const entity = 'id' in key ? await tools.findOneBy(key) : pickByName(await tools.findBy(key), principal);
  if (!entity || !isVisibleTo(entity, principal)) throw DomainError.notFound('Tool', idOrName);
  return entity;
};
