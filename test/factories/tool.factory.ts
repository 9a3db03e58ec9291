import type { CreateToolDto } from '../../src/tools/tool.dto';

let sequence = 0;

/** A valid POST /api/v1/tools body; override any field. */
export function toolBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  sequence += 1;
  const name = (overrides.name as string | undefined) ?? `tool_${Date.now().toString(36)}_${sequence}`;
  return {
    name,
    description: 'Adds two numbers',
    category: 'math',
    function_schema: {
      type: 'function',
      function: {
        name,
        description: 'Adds two numbers',
        parameters: {
          type: 'object',
          properties: { a: { type: 'number' }, b: { type: 'number' } },
          required: ['a', 'b'],
          additionalProperties: false,
        },
      },
    },
    implementation_type: 'code',
    implementation_config: { language: 'javascript', code: 'return { sum: args.a + args.b };' },
    effect: 'read_only',
    ...overrides,
  };
}

/** The same body as ToolsService.create takes it, after validation. */
export const newTool = (overrides: Partial<CreateToolDto> = {}): CreateToolDto =>
  toolBody(overrides) as unknown as CreateToolDto;
