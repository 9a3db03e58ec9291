import type { ToolImplementations } from '../../src/tools/tool-implementations';

/** Implementation types that accept any config and keep no secrets: for specs of rules that are not theirs. */
export const permissiveImplementations = (): ToolImplementations => ({
  describe: () => [],
  validateConfig: () => [],
  mask: (_type, config) => ({ ...config }),
  restoreSecrets: (_type, next) => next,
  deriveParameters: () => Promise.resolve(undefined),
  adminOnly: () => false,
  defaults: () => ({}),
  shippedTools: () => [],
});
