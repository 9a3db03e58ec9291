import type { FieldProblem } from './types';

export const API_BASE = '/api/v1';

let signedInKey: () => string = () => '';
/** Where calls read the signed-in key from (the session store, wired in main.ts): this module imports no store. */
export function readKeyFrom(source: () => string): void {
  signedInKey = source;
}

/** A problem+json answer of the API: `detail` for people, `errors` naming each field. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly errors: FieldProblem[] = [],
    readonly body: unknown = null,
  ) {
    super(message);
  }
}

type Query = Record<string, string | number | boolean | undefined | null>;

export function withQuery(path: string, query: Query = {}): string {
  const parameters = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== '') parameters.set(name, String(value));
  }
  const text = parameters.toString();
  return text ? `${path}?${text}` : path;
}

export const authHeaders = (key = signedInKey()): Record<string, string> => ({ Authorization: `Bearer ${key}` });

/** One call to the public REST API with the signed-in key; non-2xx answers become an ApiError. */
export async function api<T>(
  method: string,
  path: string,
  body?: unknown,
  key = signedInKey(),
  extraHeaders: Record<string, string> = {},
): Promise<T> {
  const headers: Record<string, string> = { ...authHeaders(key), Accept: 'application/json', ...extraHeaders };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(`${API_BASE}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = text;
  }
  if (!response.ok) {
    const problem = (parsed ?? {}) as { detail?: string; title?: string; errors?: FieldProblem[] };
    const message = problem.detail ?? problem.title ?? `${response.status} ${response.statusText}`;
    throw new ApiError(response.status, message, problem.errors ?? [], parsed);
  }
  return parsed as T;
}

export const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** An API refusal with its status (`429 Quota runs_per_day … is used up`): what a person acts on differs by status. */
export const refusalText = (error: unknown): string =>
  error instanceof ApiError ? `${error.status} ${error.message}` : errorText(error);
