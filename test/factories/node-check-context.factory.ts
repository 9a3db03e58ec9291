import type { NodeCheckContext } from '../../src/workflow/nodes/node-handler';

/** Providers as analyzeDefinition sees them: one provider `local` whose default model is `local-model`. */
export const nodeCheckContext = (): NodeCheckContext => ({
  defaultProvider: 'local',
  providers: {
    names: ['local'],
    has: (name) => name === 'local',
    resolveModel: (name, model) => model ?? `${name}-model`,
    embeds: () => true,
  },
});
