import { randomUUID } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import type { WorkflowEntity } from './workflow.entity';
import { WorkflowVersionEntity } from './workflow-version.entity';

/** Stores the version a save made, in the save's transaction: every save is one immutable version. */
export async function recordWorkflowVersion(
  manager: EntityManager,
  workflow: Pick<WorkflowEntity, 'id' | 'version' | 'name' | 'description' | 'definition'>,
  createdBy: string,
  createdAt: Date,
): Promise<void> {
  const row = {
    id: randomUUID(),
    workflowId: workflow.id,
    version: workflow.version,
    name: workflow.name,
    description: workflow.description,
    definition: workflow.definition,
    createdBy,
    createdAt,
  };
  await manager.insert(WorkflowVersionEntity, row as QueryDeepPartialEntity<WorkflowVersionEntity>);
}
