import { isRecord } from '../lib/is-record';
import { ApiError, api, withQuery } from './http';
import type {
  ExecuteToolResponse,
  CreateMcpServerDto,
  ImplementationTypeResponse,
  McpServerResponse,
  McpServerSyncResponse,
  McpServerWriteResponse,
  Page,
  ProviderListResponse,
  QuotaLimitsDto,
  QuotaPageResponse,
  QuotaResponse,
  UsageResponse,
  ApprovalPageResponse,
  ApiKeyPageResponse,
  AuditPageResponse,
  MeResponse,
  DecideApprovalDto,
  RunResponse,
  ToolCallLogResponse,
  ToolResponse,
  ToolVersionResponse,
  ToolVersionSummary,
  ToolWriteResponse,
  WorkflowResponse,
  GetTestSuiteResponse,
  ListTestRunsResponse,
  GetTestRunResponse,
  StartTestRunResponse,
  WorkflowVersionResponse,
  WorkflowVersionSummary,
} from './types';

type Query = Parameters<typeof withQuery>[1];

/** One module per REST resource, each a thin map onto the public endpoints. */
export const sessionApi = {
  /** Who a key is (any key); `key` checks one that is not signed in yet. */
  me: (key?: string) => api<MeResponse>('GET', '/me', undefined, key),
  /** API keys, without the keys themselves (admins only). */
  apiKeys: (query: Query) => api<ApiKeyPageResponse>('GET', withQuery('/api-keys', query)),
};

export const providersApi = {
  list: () => api<ProviderListResponse>('GET', '/providers'),
};

export const toolsApi = {
  list: (query: Query) => api<Page<ToolResponse>>('GET', withQuery('/tools', query)),
  get: (id: string) => api<ToolResponse>('GET', `/tools/${encodeURIComponent(id)}`),
  create: (body: Record<string, unknown>) => api<ToolWriteResponse>('POST', '/tools', body),
  update: (id: string, body: Record<string, unknown>) => api<ToolWriteResponse>('PATCH', `/tools/${id}`, body),
  remove: (id: string) => api<null>('DELETE', `/tools/${id}`),
  implementationTypes: () => api<ImplementationTypeResponse[]>('GET', '/tools/implementation-types'),
  /** 422 (invalid arguments) carries the same result shape, with `errors` per field: returned, not thrown. */
  execute: (id: string, args: unknown) =>
    api<ExecuteToolResponse>('POST', `/tools/${id}/execute`, { arguments: args }).catch((error: unknown) => {
      if (error instanceof ApiError && error.status === 422 && isRecord(error.body) && 'success' in error.body) {
        return error.body as ExecuteToolResponse;
      }
      throw error;
    }),
  logs: (id: string, query: Query) => api<Page<ToolCallLogResponse>>('GET', withQuery(`/tools/${id}/logs`, query)),
  versions: (id: string) => api<ToolVersionSummary[]>('GET', `/tools/${id}/versions`),
  version: (id: string, version: number) => api<ToolVersionResponse>('GET', `/tools/${id}/versions/${version}`),
  rollback: (id: string, version: number) => api<ToolWriteResponse>('POST', `/tools/${id}/rollback`, { version }),
};

export const workflowsApi = {
  list: (query: Query) => api<Page<WorkflowResponse>>('GET', withQuery('/workflows', query)),
  get: (id: string) => api<WorkflowResponse>('GET', `/workflows/${encodeURIComponent(id)}`),
  schema: () => api<Record<string, unknown>>('GET', '/workflows/schema'),
  create: (definition: unknown) => api<WorkflowResponse>('POST', '/workflows', definition),
  replace: (id: string, definition: unknown) => api<WorkflowResponse>('PUT', `/workflows/${id}`, definition),
  versions: (id: string) => api<WorkflowVersionSummary[]>('GET', `/workflows/${id}/versions`),
  version: (id: string, version: number) => api<WorkflowVersionResponse>('GET', `/workflows/${id}/versions/${version}`),
  rollback: (id: string, version: number) => api<WorkflowResponse>('POST', `/workflows/${id}/rollback`, { version }),
  /** Turns the workflow on or off as it is stored; 412 when it changed since `workflow` was read. */
  setEnabled: (workflow: WorkflowResponse, enabled: boolean) =>
    api<WorkflowResponse>(
      'PUT',
      `/workflows/${workflow.id}`,
      { definition: { ...workflow.definition, name: workflow.name, description: workflow.description }, enabled },
      undefined,
      { 'If-Match': `"${workflow.version}"` },
    ),
  run: (id: string, inputs: Record<string, unknown>) =>
    api<RunResponse>('POST', `/workflows/${encodeURIComponent(id)}/runs`, { inputs }),
  runInline: (definition: unknown, inputs: Record<string, unknown>) =>
    api<RunResponse>('POST', '/workflow-runs', { definition, inputs }),
};

export const testsApi = {
  suite: (workflowId: string) => api<GetTestSuiteResponse>('GET', `/workflows/${encodeURIComponent(workflowId)}/tests`),
  testRuns: (workflowId: string) =>
    api<ListTestRunsResponse>('GET', `/workflows/${encodeURIComponent(workflowId)}/test-runs`),
  /** Starts a test run: answered at once, `running`; follow it with `testRun`. */
  start: (workflowId: string) =>
    api<StartTestRunResponse>('POST', `/workflows/${encodeURIComponent(workflowId)}/test-runs?wait=false`, {}),
  testRun: (workflowId: string, testRunId: string) =>
    api<GetTestRunResponse>(
      'GET',
      `/workflows/${encodeURIComponent(workflowId)}/test-runs/${encodeURIComponent(testRunId)}`,
    ),
};

export const runsApi = {
  list: (query: Query) => api<Page<RunResponse>>('GET', withQuery('/runs', query)),
  get: (id: string) => api<RunResponse>('GET', `/runs/${id}`),
  cancel: (id: string) => api<RunResponse>('POST', `/runs/${id}/cancel`),
};

export const mcpServersApi = {
  list: (query: Query) => api<Page<McpServerResponse>>('GET', withQuery('/mcp-servers', query)),
  create: (body: CreateMcpServerDto) => api<McpServerWriteResponse>('POST', '/mcp-servers', body),
  sync: (id: string) => api<McpServerSyncResponse>('POST', `/mcp-servers/${id}/sync`),
  remove: (id: string, force = false) =>
    api<null>('DELETE', withQuery(`/mcp-servers/${id}`, { force: force || undefined })),
};

export const approvalsApi = {
  pending: (query: Query = {}) =>
    api<ApprovalPageResponse>('GET', withQuery('/approvals', { ...query, status: 'pending' })),
  /** 422 names the fields of edited arguments that do not fit the tool's schema; 409 when already decided. */
  decide: (runId: string, approvalId: string, body: DecideApprovalDto) =>
    api<RunResponse>('POST', `/runs/${runId}/approvals/${approvalId}`, body),
};

export const quotasApi = {
  /** The caller's own quotas, with what each window has used. */
  mine: () => api<QuotaResponse>('GET', '/quotas/me'),
  /** Every user that has quotas (admins). */
  list: (query: Query) => api<QuotaPageResponse>('GET', withQuery('/quotas', query)),
  get: (userId: string) => api<QuotaResponse>('GET', `/quotas/${encodeURIComponent(userId)}`),
  /** Replaces all of a user's quotas (admins): one left out no longer limits; 400 names each bad field. */
  put: (userId: string, limits: QuotaLimitsDto) =>
    api<QuotaResponse>('PUT', `/quotas/${encodeURIComponent(userId)}`, limits),
};

export const usageApi = {
  /** Runs, tokens and cost by day, workflow or model; `user_id` only for admins. */
  get: (query: Query) => api<UsageResponse>('GET', withQuery('/usage', query)),
};

export const auditApi = {
  list: (query: Query) => api<AuditPageResponse>('GET', withQuery('/audit', query)),
};
