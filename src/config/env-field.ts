import * as ipaddr from 'ipaddr.js';
import { readFileSync } from 'node:fs';
import { z } from 'zod';

export type Env = Record<string, string | undefined>;

/** One environment variable: its name and the schema that turns its text (unset or blank: undefined) into a setting. */
export class EnvField<T> {
  constructor(
    readonly variable: string,
    readonly schema: z.ZodType<T>,
    /** Whether a problem may quote the raw value (never for URLs that may carry a password, or JSON with keys). */
    readonly quotable = true,
  ) {}
}

/** A nested group of settings, each leaf read from one variable. */
export interface SettingsSpec {
  readonly [key: string]: EnvField<unknown> | SettingsSpec;
}

/** The typed settings a spec yields: the spec is the one place a variable, its type and its rules are written. */
export type SettingsOf<S> = { -readonly [K in keyof S]: S[K] extends EnvField<infer T> ? T : SettingsOf<S[K]> };

const blankAsUnset = (value: unknown) => (typeof value === 'string' && value.trim() === '' ? undefined : value);

export const envField = <T>(variable: string, schema: z.ZodType<T>, quotable = true) =>
  new EnvField<T>(variable, z.preprocess(blankAsUnset, schema), quotable);

export const text = (variable: string, fallback: string) => envField(variable, z.string().default(fallback));

export const optionalText = (variable: string, quotable = true) =>
  envField(
    variable,
    z
      .string()
      .optional()
      .transform((value) => value ?? null),
    quotable,
  );

export const int = (variable: string, fallback: number, min: number, max: number) => {
  const error = `must be an integer between ${min} and ${max}`;
  return envField(
    variable,
    z.coerce.number({ error }).int({ error }).min(min, { error }).max(max, { error }).default(fallback),
  );
};

export const bool = (variable: string, fallback: boolean) =>
  envField(
    variable,
    z
      .stringbool({
        truthy: ['1', 'true', 'yes', 'on'],
        falsy: ['0', 'false', 'no', 'off'],
        error: 'must be true or false',
      })
      .default(fallback),
  );

export const oneOf = <const V extends readonly [string, ...string[]]>(
  variable: string,
  values: V,
  fallback: V[number],
) => envField(variable, z.enum(values, { error: `must be one of ${values.join(', ')}` }).default(fallback));

const UNITS = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 } as const;

/** A size in bytes: `1048576`, `512kb`, `1mb`, `1gb`. */
export const bytes = (variable: string, fallback: number) =>
  envField(
    variable,
    z
      .string()
      .trim()
      .toLowerCase()
      .regex(/^\d+\s*(b|kb|mb|gb)?$/, { error: 'must be a size like 1048576, 512kb or 1mb' })
      .transform((value) => {
        const [, amount, unit = 'b'] = /^(\d+)\s*(b|kb|mb|gb)?$/.exec(value) ?? [];
        return Number(amount) * UNITS[unit as keyof typeof UNITS];
      })
      .default(fallback),
  );

const isAddressOrCidr = (entry: string) =>
  entry.includes('/') ? ipaddr.isValidCIDR(entry) : ipaddr.isValid(entry) && !/^\d+$/.test(entry);

/** A comma-separated list; each bad item is its own problem. */
export const list = <T>(variable: string, item: z.ZodType<T, string>) =>
  envField(
    variable,
    z
      .string()
      .default('')
      .transform((value) =>
        value
          .split(',')
          .map((entry) => entry.trim())
          .filter(Boolean),
      )
      .pipe(z.array(item)),
  );

/** IP addresses or CIDRs, e.g. `10.0.0.0/8,127.0.0.1`. */
export const cidrList = (variable: string) =>
  list(
    variable,
    z.string().refine(isAddressOrCidr, { error: (issue) => `"${String(issue.input)}" is not a CIDR or IP address` }),
  );

const schemeCheck = (schemes: readonly string[]) => (value: string, ctx: z.RefinementCtx) => {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(value)?.[1].toLowerCase();
  if (scheme && schemes.includes(scheme)) return true;
  ctx.addIssue({ code: 'custom', message: `must start with ${schemes.map((name) => `${name}:`).join(', ')}` });
  return false;
};

/**
 * A URL whose scheme is one of `schemes` (written without `//`, as `sqlite:` URLs have none), turned
 * into a setting by `parse`; problems never echo it (it may hold a password).
 */
export const url = <T>(
  variable: string,
  schemes: readonly string[],
  parse: (url: string, ctx: z.RefinementCtx) => T,
  fallback: string,
) =>
  envField(
    variable,
    z
      .string()
      .default(fallback)
      .transform((value, ctx) => (schemeCheck(schemes)(value, ctx) ? parse(value, ctx) : z.NEVER)),
    false,
  );

/** Like `url`, null when unset. */
export const optionalUrl = <T>(
  variable: string,
  schemes: readonly string[],
  parse: (url: string, ctx: z.RefinementCtx) => T,
) =>
  envField(
    variable,
    z
      .string()
      .optional()
      .transform((value, ctx) => {
        if (value === undefined) return null;
        return schemeCheck(schemes)(value, ctx) ? parse(value, ctx) : z.NEVER;
      }),
    false,
  );

const parseJson = (text: string, ctx: z.RefinementCtx): unknown => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    ctx.addIssue({ code: 'custom', message: 'is not valid JSON' });
    return z.NEVER;
  }
};

/** JSON text checked against `schema`; problems never echo the value (it may hold keys). */
export const json = <T>(variable: string, schema: z.ZodType<T>) =>
  envField(
    variable,
    z
      .string()
      .optional()
      .transform((value, ctx) => (value === undefined ? undefined : parseJson(value, ctx)))
      .pipe(schema.optional()),
    false,
  );

/** The path of a JSON file checked against `schema`. */
export const jsonFile = <T>(variable: string, schema: z.ZodType<T>) =>
  envField(
    variable,
    z
      .string()
      .optional()
      .transform((path, ctx) => {
        if (path === undefined) return undefined;
        let text: string;
        try {
          text = readFileSync(path, 'utf8');
        } catch (error) {
          ctx.addIssue({ code: 'custom', message: `cannot be read: ${(error as Error).message}` });
          return z.NEVER;
        }
        return parseJson(text, ctx);
      })
      .pipe(schema.optional()),
  );

const describeIssue = (field: EnvField<unknown>, issue: z.core.$ZodIssue, raw: string | undefined): string => {
  const path = issue.path.map((part) => (typeof part === 'number' ? `[${part}]` : `.${String(part)}`)).join('');
  const shown = field.quotable && raw !== undefined && path === '' ? `, got "${raw}"` : '';
  return `${field.variable}${path} ${issue.message}${shown}`;
};

/**
 * Reads every variable of `spec` from `env`. A variable that fails is left out of the result and
 * its problems are added to `problems`, so one pass reports everything that is wrong.
 */
export function readSettings<S extends SettingsSpec>(spec: S, env: Env, problems: string[]): SettingsOf<S> {
  const settings: Record<string, unknown> = {};
  for (const [key, node] of Object.entries(spec)) {
    if (!(node instanceof EnvField)) {
      settings[key] = readSettings(node, env, problems);
      continue;
    }
    const result = node.schema.safeParse(env[node.variable]);
    if (result.success) settings[key] = result.data;
    else problems.push(...result.error.issues.map((issue) => describeIssue(node, issue, env[node.variable])));
  }
  return settings as SettingsOf<S>;
}
