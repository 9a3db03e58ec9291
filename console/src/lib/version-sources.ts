import type { DataTableColumns } from 'naive-ui';
import { toolsApi, workflowsApi } from '../api/resources';
import type {
  ToolResponse,
  ToolVersionResponse,
  ToolVersionSummary,
  ToolWriteResponse,
  WorkflowResponse,
  WorkflowVersionResponse,
  WorkflowVersionSummary,
} from '../api/types';

/** A row of a version list: what every versioned resource's summary has. */
export interface VersionRow {
  version: number;
  created_at: string;
}

/** What VersionHistory needs of a versioned resource (a tool, a workflow): its versions, one version, a rollback. */
export interface VersionSource<Row extends VersionRow, Version extends { version: number }, Saved> {
  /** Tells apart the resources whose versions are cached. */
  id: string;
  current: number;
  list: () => Promise<Row[]>;
  get: (version: number) => Promise<Version>;
  rollback: (version: number) => Promise<Saved>;
  /** What the diff compares of a version. */
  snapshot: (version: Version) => unknown;
  /** The fields that differ, when the resource names them (a tool); null when only the diff says (a workflow). */
  changedFields: (from: Version, to: Version) => string[] | null;
  /** The list's columns between "Saved" and "Actions". */
  columns: DataTableColumns<Row>;
  rollbackTitle: string;
  rollbackText: (version: number, next: number) => string;
  scrollX: number;
}

const TOOL_FIELDS = [
  'name',
  'description',
  'category',
  'effect',
  'requires_approval',
  'implementation_type',
  'function_schema',
  'implementation_config',
] as const;

export const toolVersions = (
  tool: ToolResponse,
): VersionSource<ToolVersionSummary, ToolVersionResponse, ToolWriteResponse> => ({
  id: `tool:${tool.id}`,
  current: tool.version,
  list: () => toolsApi.versions(tool.id),
  get: (version) => toolsApi.version(tool.id, version),
  rollback: (version) => toolsApi.rollback(tool.id, version),
  snapshot: (version) => Object.fromEntries(TOOL_FIELDS.map((field) => [field, version[field]])),
  changedFields: (from, to) => TOOL_FIELDS.filter((field) => JSON.stringify(from[field]) !== JSON.stringify(to[field])),
  columns: [
    { title: 'Name', key: 'name' },
    { title: 'Type', key: 'implementation_type' },
    { title: 'Effect', key: 'effect' },
    { title: 'Approval', key: 'requires_approval', render: (row) => (row.requires_approval ? 'required' : '—') },
    { title: 'Description', key: 'description', ellipsis: { tooltip: true }, minWidth: 160 },
  ],
  rollbackTitle: 'Roll back tool',
  rollbackText: (version, next) =>
    `Make the schema and implementation of version ${version} the new version ${next} of ${tool.name}? Runs already started keep the version they pinned.`,
  scrollX: 960,
});

export const workflowVersions = (
  workflow: WorkflowResponse,
): VersionSource<WorkflowVersionSummary, WorkflowVersionResponse, WorkflowResponse> => ({
  id: `workflow:${workflow.id}`,
  current: workflow.version,
  list: () => workflowsApi.versions(workflow.id),
  get: (version) => workflowsApi.version(workflow.id, version),
  rollback: (version) => workflowsApi.rollback(workflow.id, version),
  snapshot: (version) => version.definition,
  changedFields: () => null,
  columns: [
    { title: 'By', key: 'created_by' },
    { title: 'Name', key: 'name' },
    { title: 'Description', key: 'description', ellipsis: { tooltip: true }, minWidth: 160 },
  ],
  rollbackTitle: 'Roll back workflow',
  rollbackText: (version, next) =>
    `Make the definition of version ${version} the new version ${next} of ${workflow.name}? Runs already started keep the version they started with.`,
  scrollX: 760,
});
