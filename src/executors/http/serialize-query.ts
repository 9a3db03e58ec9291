import { stringifyValue } from './placeholder-template';

/** OpenAPI's query parameter styles. */
export const QUERY_STYLES = ['form', 'spaceDelimited', 'pipeDelimited', 'deepObject'] as const;
export type QueryStyle = (typeof QUERY_STYLES)[number];

export interface QuerySerialization {
  style: QueryStyle;
  /** OpenAPI's default: true for `form`, false for the others. */
  explode?: boolean;
}

const DELIMITERS: Record<QueryStyle, string> = { form: ',', spaceDelimited: ' ', pipeDelimited: '|', deepObject: ',' };

/**
 * The `name=value` pairs one query argument becomes under an OpenAPI style: arrays repeat the name when
 * exploded and are joined by the style's delimiter when not; objects spread their keys (`deepObject`:
 * `name[key]`). Scalars are one pair whatever the style.
 */
export const serializeQueryValue = (
  name: string,
  value: unknown,
  { style, explode = style === 'form' }: QuerySerialization,
): [string, string][] => {
  const delimiter = DELIMITERS[style];
  if (Array.isArray(value)) {
    const items = value.map(stringifyValue);
    return explode || style === 'deepObject' ? items.map((item) => [name, item]) : [[name, items.join(delimiter)]];
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).map(([key, item]) => [key, stringifyValue(item)] as [string, string]);
    if (style === 'deepObject') return entries.map(([key, item]) => [`${name}[${key}]`, item]);
    return explode ? entries : [[name, entries.flat().join(delimiter)]];
  }
  return [[name, stringifyValue(value)]];
};
