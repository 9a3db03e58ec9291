import { Inject, Injectable } from '@nestjs/common';
import { isAdmin, type Principal } from '../common/auth/principal';
import { ToolsService } from '../tools/tools.service';
import { ToolVersionsService } from '../tools/tool-versions.service';
import type { ToolPin, ToolPins } from '../tools/stored-tool';
import type { UnusableTool } from '../executors/executor';
import type { ExecutorCatalog } from '../executors/executor-catalog';
import { EXECUTOR_CATALOG } from '../executors/executors.tokens';
import { type ToolDefinition, toolName } from '../shared/tool-definition';

export interface ResolvedTools {
  definitions: ToolDefinition[];
  /** Names that do not exist or that the principal may not use. */
  missing: string[];
  disabled: string[];
  /** Enabled tools that cannot do their job now (e.g. the workflow a workflow tool runs is disabled); when asked. */
  unusable: Array<UnusableTool & { name: string }>;
}

const pinKey = (pin: { id: string; version: number }) => `${pin.id}@${pin.version}`;

const pinOf = (pins: ToolPins, name: string): Array<[string, ToolPin]> =>
  Object.hasOwn(pins, name) ? [[name, pins[name]]] : [];

/** Turns stored tools into executable definitions: by name, by selector, or from the versions a run pinned. */
@Injectable()
export class RegistryService {
  constructor(
    private readonly tools: ToolsService,
    private readonly versions: ToolVersionsService,
    @Inject(EXECUTOR_CATALOG) private readonly executors: ExecutorCatalog,
  ) {}

  /** Definitions for the named tools, in the order asked; reports names that are missing or disabled. */
  async resolve(
    names: readonly string[],
    principal: Principal,
    options: { checkUsable?: boolean } = {},
  ): Promise<ResolvedTools> {
    const unique = [...new Set(names)];
    const stored = await this.tools.findUsableByNames(unique, principal);
    const byName = new Map(stored.map((tool) => [tool.name, tool]));
    const result: ResolvedTools = { definitions: [], missing: [], disabled: [], unusable: [] };
    const caller = { userId: principal.userId, isAdmin: isAdmin(principal) };
    for (const name of unique) {
      const tool = byName.get(name);
      if (!tool) result.missing.push(name);
      else if (!tool.enabled) result.disabled.push(name);
      else {
        result.definitions.push(await this.executors.toDefinition(tool));
        const unusable = options.checkUsable ? await this.executors.unusableReason(tool, caller) : null;
        if (unusable) result.unusable.push({ name, ...unusable });
      }
    }
    return result;
  }

  /**
   * `named` followed by what selectors add (each a category, or null for every usable tool), by name within
   * each selector, every tool once: an LLM node's tools list as it resolves now.
   */
  async expandSelectors(
    named: readonly ToolDefinition[],
    selectors: readonly (string | null)[],
    principal: Principal,
  ): Promise<ToolDefinition[]> {
    const definitions = [...named];
    const seen = new Set(named.map(toolName));
    for (const category of new Set(selectors)) {
      for (const tool of await this.tools.findUsable(category, principal)) {
        if (seen.has(tool.name)) continue;
        seen.add(tool.name);
        definitions.push(await this.executors.toDefinition(tool));
      }
    }
    return definitions;
  }

  /**
   * The same lists from the versions a run pinned at its start, whatever changed since: the named tools in the
   * order asked (a name without a pin, or whose tool was deleted, is missing), then the pins each selector matches.
   */
  async resolvePinned(
    names: readonly string[],
    selectors: readonly (string | null)[],
    pins: ToolPins,
  ): Promise<ResolvedTools> {
    const unique = [...new Set(names)];
    const wanted = selectors.length > 0 ? Object.entries(pins) : unique.flatMap((name) => pinOf(pins, name));
    const pinned = await this.versions.findPinned(wanted.map(([, pin]) => pin));
    const byPin = new Map(pinned.map((entry) => [pinKey(entry.tool), entry]));
    const result: ResolvedTools = { definitions: [], missing: [], disabled: [], unusable: [] };
    const seen = new Set<string>();
    for (const name of unique) {
      const entry = pinOf(pins, name).map(([, pin]) => byPin.get(pinKey(pin)))[0];
      if (!entry) result.missing.push(name);
      else result.definitions.push(await this.executors.toDefinition(entry.tool));
      seen.add(name);
    }
    const byName = wanted.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    for (const category of new Set(selectors)) {
      for (const [name, pin] of byName) {
        const entry = byPin.get(pinKey(pin));
        if (seen.has(name) || !entry || (category !== null && entry.category !== category)) continue;
        seen.add(name);
        result.definitions.push(await this.executors.toDefinition(entry.tool));
      }
    }
    return result;
  }
}
