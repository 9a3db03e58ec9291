import { errorMessage } from '../../shared/error-text';
import type { ToolDefinition } from '../../shared/tool-definition';
import type { RunContext } from '../execution/run-context';
import { unitVector } from '../../agent/selection/semantic-ranking';
import type { SemanticSearch } from '../../agent/selection/tool-selection';
import { toolVectors } from '../../agent/selection/tool-vectors';
import { selects, type ToolSelectionData } from './llm-node-tools';
import type { DataProblem, NodeCheckContext, NodeServices } from './node-handler';

/** The embedding settings of a node's tool selection: a provider with an embeddings API, if a model is named. */
export function checkEmbeddings(
  selection: ToolSelectionData | undefined,
  provider: string,
  { providers }: NodeCheckContext,
): DataProblem[] {
  if (selection?.embedding_provider !== undefined && selection.embedding_model === undefined) {
    return [{ field: 'tool_selection.embedding_model', message: 'embedding_provider is set but no embedding_model' }];
  }
  if (selection?.embedding_model === undefined) return [];
  const name = selection.embedding_provider ?? provider;
  if (!providers.has(name)) {
    const message = `unknown provider "${name}"; configured: ${providers.names.join(', ')}`;
    return [{ field: 'tool_selection.embedding_provider', message, unconfigured: true }];
  }
  if (!providers.embeds(name)) {
    const message =
      `provider "${name}" speaks anthropic, which has no embeddings API; name an OpenAI-compatible or Ollama ` +
      'provider in tool_selection.embedding_provider';
    return [
      {
        field:
          selection.embedding_provider === undefined
            ? 'tool_selection.embedding_model'
            : 'tool_selection.embedding_provider',
        message,
      },
    ];
  }
  return [];
}

/**
 * The embeddings of a node's tools (stored once per tool version and model) and the way to embed its queries;
 * undefined when the node asks for none, selects nothing, or the tools cannot be embedded: then it ranks
 * lexically, and an `llm.embeddings_failed` event says why.
 */
export async function semanticSearchFor(
  selection: ToolSelectionData | undefined,
  tools: readonly ToolDefinition[],
  { nodeId, nodeProvider, run, deps }: { nodeId: string; nodeProvider: string; run: RunContext; deps: NodeServices },
): Promise<SemanticSearch | undefined> {
  const model = selection?.embedding_model;
  if (model === undefined || deps.toolEmbeddings === undefined || !selects(selection, tools)) return undefined;
  const provider = selection?.embedding_provider ?? nodeProvider;
  const failed = (stage: 'tools' | 'query', error: unknown): void =>
    run.emit('llm.embeddings_failed', {
      node_id: nodeId,
      stage,
      provider,
      model,
      message: errorMessage(error, { descriptive: true }),
    });
  try {
    const embedder = deps.providers.getEmbedder(provider);
    const vectors = await toolVectors(tools, {
      store: deps.toolEmbeddings,
      modelKey: `${provider}/${model}`,
      embed: (texts) => embedder.embed(model, texts, { signal: run.signal }),
    });
    return {
      vectors,
      embed: async (text, signal) => unitVector((await embedder.embed(model, [text], { signal }))[0]),
      onFailure: (error) => failed('query', error),
    };
  } catch (error) {
    if (run.signal.aborted) throw error;
    failed('tools', error);
    return undefined;
  }
}
