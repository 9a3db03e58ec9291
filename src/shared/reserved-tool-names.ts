/** Tools an LLM node adds itself: no stored tool may take these names. */
export const READ_TOOL_RESULT = 'read_tool_result';
export const SEARCH_TOOLS = 'search_tools';
export const RESERVED_TOOL_NAMES: readonly string[] = [READ_TOOL_RESULT, SEARCH_TOOLS];
