import { Injectable } from '@nestjs/common';
import type { Principal } from '../common/auth/principal';
import { ToolsService } from '../tools/tools.service';
import { WorkflowsService } from '../workflow/workflows.service';
import { type Bundle, BUNDLE_FORMAT, BUNDLE_FORMAT_VERSION, type ExportQuery } from './bundle.dto';

/** `a, b,,c` → ['a', 'b', 'c']; absent or empty → null. */
const listOf = (value: string | undefined): string[] | null => {
  const items = (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  return items.length > 0 ? items : null;
};

/** GET /export: tools and workflows the caller may see, as one bundle that POST /import reads. */
@Injectable()
export class BundleExportService {
  constructor(
    private readonly tools: ToolsService,
    private readonly workflows: WorkflowsService,
  ) {}

  async export(query: ExportQuery, principal: Principal): Promise<Bundle> {
    const toolKeys = listOf(query.tools);
    const workflowKeys = listOf(query.workflows);
    const everything = toolKeys === null && workflowKeys === null;
    const [tools, workflows] = await Promise.all([
      everything || toolKeys !== null ? this.tools.exportable(toolKeys, principal) : [],
      everything || workflowKeys !== null ? this.workflows.exportable(workflowKeys, principal) : [],
    ]);
    return {
      format: BUNDLE_FORMAT,
      format_version: BUNDLE_FORMAT_VERSION,
      exported_at: new Date().toISOString(),
      tools: tools.map((tool) => ({
        id: tool.id,
        name: tool.name,
        description: tool.description,
        category: tool.category,
        function_schema: tool.function_schema,
        implementation_type: tool.implementation_type,
        implementation_config: tool.implementation_config,
        effect: tool.effect,
        requires_approval: tool.requires_approval,
        is_public: tool.is_public,
        enabled: tool.enabled,
      })),
      workflows: workflows.map((workflow) => ({
        id: workflow.id,
        definition: workflow.definition,
        is_public: workflow.is_public,
        enabled: workflow.enabled,
      })),
    };
  }
}
