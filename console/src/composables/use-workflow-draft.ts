import { computed, ref, watch, type Ref } from 'vue';
import { errorText } from '../api/http';
import type { FieldProblem } from '../api/types';
import { allNodeIds, freeId, insertNode, type AddableType } from '../lib/graph-edit';
import { nodeOfProblem, shapeProblems, type DraftDefinition } from '../lib/workflow-check';
import { useWorkflowsStore } from '../stores/workflows';

const STARTER: DraftDefinition = {
  name: 'my-workflow',
  description: 'Answers a question with tools',
  inputs: { type: 'object', properties: { question: { type: 'string' } }, required: ['question'] },
  nodes: [
    { id: 'start', type: 'start', data: {} },
    {
      id: 'llm-1',
      type: 'llm',
      data: { prompt: '{{inputs.question}}', enable_tools: true, tools: ['calculator'], max_iterations: 5 },
    },
    { id: 'end', type: 'end', data: { outputs: { answer: '{{llm-1.text}}' } } },
  ],
  edges: [
    { source: 'start', target: 'llm-1' },
    { source: 'llm-1', target: 'end' },
  ],
};

/**
 * A workflow definition being edited as JSON text: what it parses to (the last good one while the text is broken),
 * its problems as typed (live schema check) and from the API, pinned to the node they name, and the node edits the
 * graph and the node forms make.
 */
export function useWorkflowDraft(apiProblems: Ref<FieldProblem[]>) {
  const store = useWorkflowsStore();
  const text = ref(JSON.stringify(STARTER, null, 2));
  const selected = ref<string | null>(null);
  const lastGood = ref<DraftDefinition>(STARTER);

  const parsed = computed<{ value: DraftDefinition | null; error: string }>(() => {
    try {
      const value = JSON.parse(text.value) as DraftDefinition;
      return {
        value: value && typeof value === 'object' ? value : null,
        error: value && typeof value === 'object' ? '' : 'must be an object',
      };
    } catch (failure) {
      return { value: null, error: errorText(failure) };
    }
  });
  watch(parsed, (next) => {
    if (next.value) lastGood.value = next.value;
  });
  const definition = computed(() => parsed.value.value ?? lastGood.value);
  const liveProblems = computed<FieldProblem[]>(() => {
    if (parsed.value.error) return [{ field: 'definition', message: `is not valid JSON: ${parsed.value.error}` }];
    return store.validate && parsed.value.value ? shapeProblems(store.validate, parsed.value.value) : [];
  });
  const allProblems = computed(() => [...liveProblems.value, ...apiProblems.value]);
  const pinned = computed(() => {
    const byNode: Record<string, string[]> = {};
    for (const problem of allProblems.value) {
      const node = nodeOfProblem(problem, definition.value);
      if (node)
        (byNode[node] ??= []).push(
          `${problem.field.replace(/^definition\.nodes\[\d+\](\([^)]*\))?\.?/, '')} ${problem.message}`.trim(),
        );
    }
    return byNode;
  });
  const selectedNode = computed(() => definition.value.nodes?.find((node) => node.id === selected.value) ?? null);
  const takenIds = computed(() => allNodeIds(definition.value));

  const updateNode = (data: Record<string, unknown>) => {
    const value = parsed.value.value;
    if (!value?.nodes || !selected.value) return;
    const nodes = value.nodes.map((node) => (node.id === selected.value ? { ...node, data } : node));
    text.value = JSON.stringify({ ...value, nodes }, null, 2);
  };

  /** Adds a node after the selected one (or unconnected) and selects it, so its form opens. */
  const addNode = (type: AddableType) => {
    const value = parsed.value.value;
    if (!value) return;
    const id = freeId(takenIds.value, type);
    text.value = JSON.stringify(insertNode(value, selected.value, type, id), null, 2);
    selected.value = id;
  };

  return {
    text,
    selected,
    parsed,
    definition,
    allProblems,
    pinned,
    selectedNode,
    takenIds,
    updateNode,
    addNode,
  };
}
