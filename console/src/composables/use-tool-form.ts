import { computed, ref, watch } from 'vue';
import { errorText } from '../api/http';
import type { ImplementationTypeResponse, ToolResponse } from '../api/types';
import { lintParameters } from '../lib/schema-lint';

const STARTER_PARAMETERS = {
  type: 'object',
  properties: { city: { type: 'string', description: 'City name' } },
  required: ['city'],
};

/** The fields of a tool's form besides its parameters and config. */
export interface ToolFields {
  name: string;
  description: string;
  category: string;
  implementation_type: string;
  effect: string;
  is_public: boolean;
  enabled: boolean;
  requires_approval: boolean;
}

/** The body a tool form sends, or why it cannot be sent (JSON that does not parse). */
export type ToolBody = { ok: true; body: Record<string, unknown> } | { ok: false; problem: string };

/**
 * A tool's edit form: its fields, the parameters' JSON Schema text, and the implementation config as a form or as
 * JSON text. `requires_approval` follows the effect (on for `dangerous`) until someone flips it.
 */
export function useToolForm(types: () => ImplementationTypeResponse[]) {
  const form = ref<ToolFields>({
    name: '',
    description: '',
    category: 'general',
    implementation_type: 'http',
    effect: 'read_only',
    is_public: false,
    enabled: true,
    requires_approval: false,
  });
  const approvalTouched = ref(false);
  watch(
    () => form.value.effect,
    (effect) => {
      if (!approvalTouched.value) form.value.requires_approval = effect === 'dangerous';
    },
  );
  const parametersText = ref(JSON.stringify(STARTER_PARAMETERS, null, 2));
  const config = ref<Record<string, unknown>>({});
  const rawConfig = ref(false);
  const configText = ref('{}');
  /** Config fields whose text cannot be read exactly: nothing is saved while there are any. */
  const unreadableConfig = ref<string[]>([]);
  /** The stored tool the form was filled from, if any. */
  let stored: ToolResponse | null = null;

  const liveProblems = computed(() => lintParameters(parametersText.value));
  const selectedType = computed(() => types().find((type) => type.type === form.value.implementation_type));
  const configSchema = computed(() => selectedType.value?.config_schema ?? { type: 'object', properties: {} });
  const typeDescription = computed(() => selectedType.value?.description ?? '');

  const fill = (loaded: ToolResponse) => {
    stored = loaded;
    form.value = {
      name: loaded.name,
      description: loaded.description,
      category: loaded.category,
      implementation_type: loaded.implementation_type,
      effect: loaded.effect,
      is_public: loaded.is_public,
      enabled: loaded.enabled,
      requires_approval: loaded.requires_approval,
    };
    approvalTouched.value = true;
    const fn = (loaded.function_schema as { function?: { parameters?: unknown } }).function;
    parametersText.value = JSON.stringify(fn?.parameters ?? { type: 'object', properties: {} }, null, 2);
    config.value = { ...loaded.implementation_config };
    configText.value = JSON.stringify(loaded.implementation_config, null, 2);
  };

  /** Another type: the stored config when back to the stored type, else an empty one. */
  const changeType = (type: string) => {
    form.value.implementation_type = type;
    config.value = type === stored?.implementation_type ? { ...stored.implementation_config } : {};
    configText.value = JSON.stringify(config.value, null, 2);
  };

  /** Switches the config between form and JSON text; false (and no switch) when the text is not valid JSON. */
  const setRawConfig = (value: boolean): boolean => {
    if (value) configText.value = JSON.stringify(config.value, null, 2);
    else {
      try {
        config.value = JSON.parse(configText.value) as Record<string, unknown>;
      } catch {
        return false;
      }
    }
    rawConfig.value = value;
    return true;
  };

  const body = (): ToolBody => {
    let parameters: unknown;
    let implementationConfig: Record<string, unknown>;
    try {
      parameters = JSON.parse(parametersText.value);
      implementationConfig = rawConfig.value ? (JSON.parse(configText.value) as Record<string, unknown>) : config.value;
    } catch (failure) {
      return { ok: false, problem: `Not valid JSON: ${errorText(failure)}` };
    }
    const { name, description } = form.value;
    return {
      ok: true,
      body: {
        ...form.value,
        function_schema: { type: 'function', function: { name, description, parameters } },
        implementation_config: implementationConfig,
      },
    };
  };

  return {
    form,
    approvalTouched,
    parametersText,
    config,
    rawConfig,
    configText,
    unreadableConfig,
    liveProblems,
    configSchema,
    typeDescription,
    fill,
    changeType,
    setRawConfig,
    body,
  };
}
