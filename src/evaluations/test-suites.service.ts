import { Injectable } from '@nestjs/common';
import { AuditService } from '../audit/audit.service';
import { InjectRepository } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { Repository } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import type { Principal } from '../common/auth/principal';
import { DomainError, type FieldProblem } from '../common/errors/domain-error';
import { assertCanChange } from '../common/owned-queries';
import { isRecord } from '../shared/is-record';
import type { WorkflowEntity } from '../workflow/workflow.entity';
import { WorkflowsService } from '../workflow/workflows.service';
import { checkCases, parseCasesJsonl } from './check-cases';
import type { TestCase } from './test-case.schema';
import { TestSuiteEntity } from './test-suite.entity';

/** A suite as the API shows it. */
export interface TestSuiteResponse {
  id: string;
  workflow_id: string;
  cases: TestCase[];
  created_at: string;
  updated_at: string;
}

const toSuiteResponse = (suite: TestSuiteEntity): TestSuiteResponse => ({
  id: suite.id,
  workflow_id: suite.workflowId,
  cases: suite.cases,
  created_at: suite.createdAt.toISOString(),
  updated_at: suite.updatedAt.toISOString(),
});

/** The cases of a `{cases}` or `{jsonl}` body, checked; problems name the field (`cases[2].assertions[0].type`, `jsonl:3`). */
export function casesOfBody(body: unknown): TestCase[] {
  if (!isRecord(body))
    throw DomainError.validation([{ field: 'body', message: 'must be {"cases": […]} or {"jsonl": "…"}' }]);
  const problems: FieldProblem[] = Object.keys(body)
    .filter((key) => key !== 'cases' && key !== 'jsonl')
    .map((field) => ({ field, message: 'property should not exist' }));
  if ((body.cases === undefined) === (body.jsonl === undefined)) {
    problems.push({ field: 'cases', message: 'give either `cases` (an array) or `jsonl` (JSON Lines text)' });
  }
  if (problems.length > 0) throw DomainError.validation(problems);
  let cases: unknown[];
  if (body.jsonl !== undefined) {
    if (typeof body.jsonl !== 'string') throw DomainError.validation([{ field: 'jsonl', message: 'must be a string' }]);
    const parsed = parseCasesJsonl(body.jsonl);
    if (parsed.problems.length > 0) throw DomainError.validation(parsed.problems);
    cases = parsed.cases;
  } else {
    if (!Array.isArray(body.cases)) throw DomainError.validation([{ field: 'cases', message: 'must be an array' }]);
    cases = body.cases;
  }
  const caseProblems = checkCases(cases, body.jsonl !== undefined ? 'jsonl' : 'cases');
  if (caseProblems.length > 0) throw DomainError.validation(caseProblems);
  return cases as TestCase[];
}

/** Test suites: one per workflow, a list of cases. Whoever may see the workflow reads it; its owner changes it. */
@Injectable()
export class TestSuitesService {
  constructor(
    @InjectRepository(TestSuiteEntity) private readonly suites: Repository<TestSuiteEntity>,
    private readonly workflows: WorkflowsService,
    private readonly audit: AuditService,
  ) {}

  async get(workflowIdOrName: string, principal: Principal): Promise<TestSuiteResponse> {
    const workflow = await this.workflows.findVisible(workflowIdOrName, principal);
    return toSuiteResponse(await this.suiteOf(workflow));
  }

  /** The stored suite of a visible workflow, with the workflow. */
  async find(
    workflowIdOrName: string,
    principal: Principal,
  ): Promise<{ workflow: WorkflowEntity; suite: TestSuiteEntity }> {
    const workflow = await this.workflows.findVisible(workflowIdOrName, principal);
    return { workflow, suite: await this.suiteOf(workflow) };
  }

  /** Adds cases (a new suite when there is none); a name already in the suite is a 409. */
  async add(workflowIdOrName: string, cases: TestCase[], principal: Principal): Promise<TestSuiteResponse> {
    const workflow = await this.workflows.findVisible(workflowIdOrName, principal);
    assertCanChange(workflow, principal, 'workflow');
    const existing = await this.suites.findOneBy({ workflowId: workflow.id });
    const names = new Set(existing?.cases.map((testCase) => testCase.name) ?? []);
    const taken = cases.findIndex((testCase) => names.has(testCase.name));
    if (taken >= 0) {
      throw DomainError.conflict(`the suite has a case named "${cases[taken].name}" already`, `cases[${taken}].name`);
    }
    return this.save(workflow, [...(existing?.cases ?? []), ...cases], existing, principal);
  }

  /** Replaces every case. */
  async replace(workflowIdOrName: string, cases: TestCase[], principal: Principal): Promise<TestSuiteResponse> {
    const workflow = await this.workflows.findVisible(workflowIdOrName, principal);
    assertCanChange(workflow, principal, 'workflow');
    const existing = await this.suites.findOneBy({ workflowId: workflow.id });
    return this.save(workflow, cases, existing, principal);
  }

  private async suiteOf(workflow: WorkflowEntity): Promise<TestSuiteEntity> {
    const suite = await this.suites.findOneBy({ workflowId: workflow.id });
    if (!suite) throw DomainError.notFound('Test suite of workflow', workflow.name);
    return suite;
  }

  private async save(
    workflow: WorkflowEntity,
    cases: TestCase[],
    existing: TestSuiteEntity | null,
    principal: Principal,
  ): Promise<TestSuiteResponse> {
    const now = new Date();
    const row: TestSuiteEntity = existing
      ? { ...existing, cases, updatedAt: now }
      : { id: randomUUID(), workflowId: workflow.id, cases, userId: principal.userId, createdAt: now, updatedAt: now };
    if (existing)
      await this.suites.update({ id: existing.id }, {
        cases,
        updatedAt: now,
      } as QueryDeepPartialEntity<TestSuiteEntity>);
    else await this.suites.insert(row as QueryDeepPartialEntity<TestSuiteEntity>);
    await this.audit.record(this.suites.manager, principal, {
      action: existing ? 'update' : 'create',
      type: 'test_suite',
      id: row.id,
      name: workflow.name,
    });
    return toSuiteResponse(row);
  }
}
