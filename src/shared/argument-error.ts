/** One field-level problem with a tool call's arguments, phrased so the model can fix it. */
export interface ArgumentError {
  /** JSON pointer into the arguments, e.g. `/items/0/qty`; empty for the whole object. */
  path: string;
  message: string;
  /** The value received at `path`; undefined when it was missing. */
  value: unknown;
  /** The JSON Schema keyword that failed (`type`, `required`, `enum` …), or `json` for unparseable input. */
  rule: string;
  /** A compact description of what the schema expects at `path`. */
  expected: string;
}
