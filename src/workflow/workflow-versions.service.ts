import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import type { Principal } from '../common/auth/principal';
import { DomainError } from '../common/errors/domain-error';
import type { WorkflowResponse } from './workflow.dto';
import type { WorkflowEntity } from './workflow.entity';
import type { WorkflowVersionResponse, WorkflowVersionSummary } from './workflow-version.dto';
import { WorkflowVersionEntity } from './workflow-version.entity';
import { WorkflowsService } from './workflows.service';

const toSummary = (row: WorkflowVersionEntity): WorkflowVersionSummary => ({
  version: row.version,
  name: row.name,
  description: row.description,
  created_by: row.createdBy,
  created_at: row.createdAt.toISOString(),
});

/** The saved versions of workflows: listed, read, rolled back to; runs and test suites read the one they use. */
@Injectable()
export class WorkflowVersionsService {
  constructor(
    @InjectRepository(WorkflowVersionEntity) private readonly versions: Repository<WorkflowVersionEntity>,
    private readonly workflows: WorkflowsService,
  ) {}

  /** Every version of a workflow, newest first. */
  async list(idOrName: string, principal: Principal): Promise<WorkflowVersionSummary[]> {
    const workflow = await this.workflows.findVisible(idOrName, principal);
    const rows = await this.versions.find({ where: { workflowId: workflow.id }, order: { version: 'DESC' } });
    return rows.map(toSummary);
  }

  async get(idOrName: string, version: number, principal: Principal): Promise<WorkflowVersionResponse> {
    const workflow = await this.workflows.findVisible(idOrName, principal);
    const row = await this.find(workflow, version);
    return { ...toSummary(row), workflow_id: row.workflowId, definition: row.definition };
  }

  /** One saved version of a workflow the caller can see; 404 naming both when there is no such version. */
  async find(workflow: Pick<WorkflowEntity, 'id' | 'name'>, version: number): Promise<WorkflowVersionEntity> {
    const row = await this.versions.findOneBy({ workflowId: workflow.id, version });
    if (!row) throw DomainError.notFound(`Version ${version} of workflow`, workflow.name);
    return row;
  }

  /**
   * A new version with the definition of an earlier one, checked again as any save is (a tool it used may be
   * gone); visibility and enabled stay as they are.
   */
  async rollback(idOrName: string, version: number, principal: Principal): Promise<WorkflowResponse> {
    const workflow = await this.workflows.findVisible(idOrName, principal);
    const row = await this.find(workflow, version);
    return this.workflows.replace(workflow.id, { definition: row.definition, field: 'definition' }, principal);
  }
}
