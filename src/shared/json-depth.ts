/**
 * The one nesting limit for JSON the service parses: request bodies, tool-call arguments, model output, tool and
 * MCP results. Deeper JSON is refused before it is parsed, so nothing recursive (validators, masking, logging,
 * serialisation) ever meets it.
 */
export const MAX_JSON_DEPTH = 128;

/** Deepest nesting of `{…}` and `[…]` in JSON text, brackets inside strings ignored. One pass, no recursion. */
export function jsonTextDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index);
    if (inString) {
      if (char === 0x5c) index++;
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) inString = true;
    else if (char === 0x7b || char === 0x5b) deepest = Math.max(deepest, ++depth);
    else if (char === 0x7d || char === 0x5d) depth--;
  }
  return deepest;
}

/** JSON nested deeper than the limit: refused with a message that says so. */
export class JsonTooDeepError extends Error {
  constructor(readonly maxDepth: number) {
    super(`the JSON is nested deeper than ${maxDepth} levels`);
    this.name = 'JsonTooDeepError';
  }
}

/** JSON.parse for text from outside (models, tools, servers): throws JsonTooDeepError past `maxDepth` levels. */
export function parseJsonWithin(text: string, maxDepth = MAX_JSON_DEPTH): unknown {
  if (jsonTextDepth(text) > maxDepth) throw new JsonTooDeepError(maxDepth);
  return JSON.parse(text) as unknown;
}
