import type { FunctionTool, ImplementationType, ToolEffect } from '../shared/tool-types';
import type { ToolEntity } from './tool.entity';

/** A stored tool as other modules see it: a plain read-only copy, never the TypeORM entity. */
export interface StoredTool {
  readonly id: string;
  readonly name: string;
  readonly version: number;
  readonly userId: string | null;
  readonly isPublic: boolean;
  readonly enabled: boolean;
  readonly effect: ToolEffect;
  readonly requiresApproval: boolean;
  readonly functionSchema: FunctionTool;
  readonly implementationType: ImplementationType;
  readonly implementationConfig: Record<string, unknown>;
}

export const toStoredTool = (entity: ToolEntity): StoredTool => ({
  id: entity.id,
  name: entity.name,
  version: entity.version,
  userId: entity.userId,
  isPublic: entity.isPublic,
  enabled: entity.enabled,
  effect: entity.effect,
  requiresApproval: entity.requiresApproval,
  functionSchema: entity.functionSchema,
  implementationType: entity.implementationType,
  implementationConfig: entity.implementationConfig,
});

/** What a run pinned one tool name to when it started: that tool, at the version it had then. */
export interface ToolPin {
  readonly id: string;
  readonly version: number;
}

/** A run's pins by tool name. */
export type ToolPins = Readonly<Record<string, ToolPin>>;

/** A pinned version as it was saved, with the category it had then (what `{"category"}` selectors match). */
export interface PinnedTool {
  readonly tool: StoredTool;
  readonly category: string;
}
