import { ToolsAndApiKeys1764489600000 } from './1764489600000-tools-and-api-keys';
import { ToolCallLogs1764489700000 } from './1764489700000-tool-call-logs';
import { WorkflowsAndRuns1764489800000 } from './1764489800000-workflows-and-runs';
import { IdempotencyKeys1764489900000 } from './1764489900000-idempotency-keys';
import { RunOwnerRole1796131605790 } from './1796131605790-run-owner-role';
import { McpServers1796131716766 } from './1796131716766-mcp-servers';
import { RunLeases1796131838960 } from './1796131838960-run-leases';
import { ToolResults1796132041586 } from './1796132041586-tool-results';
import { RunCheckpoints1796133054783 } from './1796133054783-run-checkpoints';
import { NamesPerOwner1796133231276 } from './1796133231276-names-per-owner';
import { ToolVersions1796136125259 } from './1796136125259-tool-versions';
import { ToolRequiresApproval1796141780697 } from './1796141780697-tool-requires-approval';
import { RunToolPins1796141861172 } from './1796141861172-run-tool-pins';
import { RunApprovals1796143545713 } from './1796143545713-run-approvals';
import { RunBudgets1796143182536 } from './1796143182536-run-budgets';
import { McpVanishedTools1796146178195 } from './1796146178195-mcp-vanished-tools';
import { WorkflowsEnabled1796146725696 } from './1796146725696-workflows-enabled';
import { ToolEmbeddings1796153083923 } from './1796153083923-tool-embeddings';
import { ToolVersionsSeeded1796164178717 } from './1796164178717-tool-versions-seeded';
import { McpSyncDisabledTools1796164903008 } from './1796164903008-mcp-sync-disabled-tools';
import { ModelExchanges1796170000000 } from './1796170000000-model-exchanges';
import { WorkflowVersions1796171000000 } from './1796171000000-workflow-versions';
import { TestSuites1796172000000 } from './1796172000000-test-suites';
import { ApprovalDecidedKeyName1796180000000 } from './1796180000000-approval-decided-key-name';
import { AuditRecords1796190000000 } from './1796190000000-audit-records';
import { Quotas1796191000000 } from './1796191000000-quotas';
import { ToolCallLogRepair1796192000000 } from './1796192000000-tool-call-log-repair';
import { ModelExchangeItems1796195000000 } from './1796195000000-model-exchange-items';
import { ToolCallLogCpu1796196000000 } from './1796196000000-tool-call-log-cpu';
import { ToolUsageTerms1796197000000 } from './1796197000000-tool-usage-terms';
import { TestRunHeartbeat1796198000000 } from './1796198000000-test-run-heartbeat';

/** Every migration in order; listed explicitly so the app, the CLI and the tests load the same set. */
export const migrations = [
  ToolsAndApiKeys1764489600000,
  ToolCallLogs1764489700000,
  WorkflowsAndRuns1764489800000,
  IdempotencyKeys1764489900000,
  RunOwnerRole1796131605790,
  McpServers1796131716766,
  RunLeases1796131838960,
  ToolResults1796132041586,
  RunCheckpoints1796133054783,
  NamesPerOwner1796133231276,
  ToolVersions1796136125259,
  ToolRequiresApproval1796141780697,
  RunToolPins1796141861172,
  RunBudgets1796143182536,
  RunApprovals1796143545713,
  McpVanishedTools1796146178195,
  WorkflowsEnabled1796146725696,
  ToolEmbeddings1796153083923,
  ToolVersionsSeeded1796164178717,
  McpSyncDisabledTools1796164903008,
  ModelExchanges1796170000000,
  WorkflowVersions1796171000000,
  TestSuites1796172000000,
  ApprovalDecidedKeyName1796180000000,
  AuditRecords1796190000000,
  Quotas1796191000000,
  ToolCallLogRepair1796192000000,
  ModelExchangeItems1796195000000,
  ToolCallLogCpu1796196000000,
  ToolUsageTerms1796197000000,
  TestRunHeartbeat1796198000000,
];
