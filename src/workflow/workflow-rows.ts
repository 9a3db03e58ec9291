import { DomainError } from '../common/errors/domain-error';
import type { WorkflowResponse } from './workflow.dto';
import type { WorkflowEntity } from './workflow.entity';

/** 409 naming the field: the name is taken among the caller's workflows (or the public ones, for a public one). */
export const workflowNameTaken = (name: string, isPublic: boolean): DomainError =>
  DomainError.conflict(
    isPublic
      ? `A workflow named "${name}" already exists among your workflows or the public ones`
      : `You already have a workflow named "${name}"`,
    'name',
  );

export const toWorkflowResponse = (entity: WorkflowEntity): WorkflowResponse => ({
  id: entity.id,
  name: entity.name,
  description: entity.description,
  definition: entity.definition,
  is_public: entity.isPublic,
  enabled: entity.enabled,
  user_id: entity.userId,
  version: entity.version,
  created_at: entity.createdAt.toISOString(),
  updated_at: entity.updatedAt.toISOString(),
});
