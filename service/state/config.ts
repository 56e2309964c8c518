// The host policy file (config.toml): parsed with smol-toml, validated by a strict zod schema, so an
// unknown key (a typo, or a `[hooks]` table this product does not have) is an error naming the key
// and the file. Every failure is one DogsledError line. Loading never writes anything.

import { homedir } from 'node:os';
import * as z from 'zod/mini';
import { MAX_DURATION_MS, parseDuration } from '../core/duration.js';
import { DogsledError } from '../errors.js';
import { oneLine } from './quarantine.js';
import { readTomlFile, unknownKeys } from './toml-file.js';
import './zod-messages.js';

export interface Config {
  free_core_fraction_min: number;
  memory_reserve_bytes: number;
  disk_free_min_percent: number;
  reservation_load: number;
  reservation_ttl_ms: number;
  /** argv prefix that runs dogsled on a peer; the transport appends ["host", verb, ...]. */
  remote_command: string[];
  cleanup: {
    /** As written in the file. */
    repositories: string[];
    /** The same entries with a leading `~/` (or a lone `~`) replaced by the home directory. */
    repository_paths: string[];
  };
  quota: {
    /** Normalized origin without a trailing slash, e.g. `https://admin.example.net:8443`. */
    management_url: string | null;
    /** Keep a Claude or Codex child queued while its quota pool is exhausted (core/quota-hold.ts). */
    hold_when_exhausted: boolean;
  };
}

export const DEFAULT_CONFIG: Readonly<Config> = Object.freeze({
  free_core_fraction_min: 0.25,
  memory_reserve_bytes: 3_221_225_472,
  disk_free_min_percent: 15,
  reservation_load: 1.0,
  reservation_ttl_ms: 90_000,
  remote_command: ['mise', 'x', '--', 'dogsled'],
  cleanup: { repositories: [], repository_paths: [] },
  quota: { management_url: null, hold_when_exhausted: true },
});

/**
 * What each key expects, type first; every issue on a key reports this and what the file holds
 * instead (`free_core_fraction_min: expected a number between 0 and 1, found the string "abc"`),
 * whatever zod's own wording.
 */
const EXPECTED: Record<string, string> = {
  free_core_fraction_min: 'a number between 0 and 1',
  memory_reserve_bytes: 'a non-negative integer (bytes)',
  disk_free_min_percent: 'a number between 0 and 100',
  reservation_load: 'a number >= 0',
  reservation_ttl_ms: 'a positive integer of milliseconds or a duration such as "90s", at most 365 days',
  remote_command: 'a non-empty array of non-empty strings',
  cleanup: 'a table',
  'cleanup.repositories': 'an array of strings',
  quota: 'a table',
  'quota.management_url':
    'an https origin such as "https://host" or "https://host:8443" (no path, query, fragment or credentials)',
  'quota.hold_when_exhausted': 'true or false',
};

// Built on first use: most hosts have no config file, and building zod schemas costs start-up time
// that `status --line` does not spend.
let fileSchema: ReturnType<typeof buildFileSchema> | undefined;

function buildFileSchema() {
  const durationText = z.pipe(
    z.string(),
    z.transform((text: string, ctx) => {
      const parsed = parseDuration(text);
      if (!parsed.ok) {
        ctx.issues.push({ code: 'custom', message: parsed.error, input: text, params: { verbatim: true } });
        return z.NEVER;
      }
      if (parsed.ms <= 0) {
        ctx.issues.push({ code: 'custom', message: 'not positive', input: text });
        return z.NEVER;
      }
      return parsed.ms;
    }),
  );

  const ttl = z.union([z.int().check(z.positive(), z.maximum(MAX_DURATION_MS)), durationText]);

  return z.strictObject({
    free_core_fraction_min: z._default(
      z.number().check(z.minimum(0), z.maximum(1)),
      DEFAULT_CONFIG.free_core_fraction_min,
    ),
    memory_reserve_bytes: z._default(z.int().check(z.nonnegative()), DEFAULT_CONFIG.memory_reserve_bytes),
    disk_free_min_percent: z._default(
      z.number().check(z.minimum(0), z.maximum(100)),
      DEFAULT_CONFIG.disk_free_min_percent,
    ),
    reservation_load: z._default(z.number().check(z.nonnegative()), DEFAULT_CONFIG.reservation_load),
    reservation_ttl_ms: z._default(ttl, DEFAULT_CONFIG.reservation_ttl_ms),
    remote_command: z._default(z.array(z.string().check(z.minLength(1))).check(z.minLength(1)), () => [
      ...DEFAULT_CONFIG.remote_command,
    ]),
    cleanup: z._default(z.strictObject({ repositories: z._default(z.array(z.string()), () => []) }), () => ({
      repositories: [],
    })),
    quota: z._default(
      z.strictObject({
        management_url: z.optional(z.pipe(z.string(), z.transform(httpsOrigin))),
        hold_when_exhausted: z.optional(z.boolean()),
      }),
      () => ({}),
    ),
  });
}

/**
 * Reads the policy at `path`. A missing file means the defaults, unless the user named it (`--config`
 * or `$DOGSLED_CONFIG`): then a missing file is an error.
 */
export async function loadConfig(path: string, explicit: boolean, home = homedir()): Promise<Config> {
  const fail = (problem: string): DogsledError => new DogsledError(`config ${path}: ${problem}`);
  const data = await readTomlFile(path, fail);
  if (data === undefined) {
    if (explicit) throw fail('file not found');
    return structuredClone(DEFAULT_CONFIG) as Config;
  }
  fileSchema ??= buildFileSchema();
  const parsed = fileSchema.safeParse(data);
  if (!parsed.success) throw fail(describe(parsed.error, data));
  const file = parsed.data;
  return {
    ...file,
    cleanup: {
      repositories: file.cleanup.repositories,
      repository_paths: file.cleanup.repositories.map((entry) => expandHome(entry, home)),
    },
    quota: {
      management_url: file.quota.management_url ?? null,
      hold_when_exhausted: file.quota.hold_when_exhausted ?? DEFAULT_CONFIG.quota.hold_when_exhausted,
    },
  };
}

/** One problem, unknown keys first: a typo usually explains the other complaints. */
function describe(error: z.core.$ZodError, data: unknown): string {
  const unknown = unknownKeys(error);
  if (unknown) return unknown;
  const issue = error.issues[0];
  if (!issue) return 'invalid';
  // Issues inside an array or a union branch carry deeper paths; the rule belongs to the key.
  const keys = issue.path.filter((part): part is string => typeof part === 'string');
  const depth = keys.length > 1 && EXPECTED[keys.slice(0, 2).join('.')] ? 2 : 1;
  const key = keys.slice(0, depth).join('.');
  if (issue.code === 'custom' && issue.params?.verbatim) return `${key}: ${issue.message}`;
  if (issue.code === 'invalid_union') {
    // The string branch of reservation_ttl_ms reports a bad duration itself; prefer its words.
    const inner = issue.errors.flat().find((sub) => sub.code === 'custom' && sub.params?.verbatim);
    if (inner) return `${key}: ${inner.message}`;
  }
  const expected = EXPECTED[key];
  if (expected === undefined) return `${key}: ${oneLine(issue.message)}`;
  // The value the issue is about: the key's own, or the element of an array that is wrong.
  const found = describeValue(valueAt(data, issue.path));
  const where = issue.path.length > depth ? ` at ${pathText(issue.path)}` : '';
  return `${key}: expected ${expected}, found ${found}${where}`;
}

function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let value = data;
  for (const part of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[part];
  }
  return value;
}

/** `remote_command[1]`, `cleanup.repositories[0]`. */
function pathText(path: readonly PropertyKey[]): string {
  return path
    .map((part, i) => (typeof part === 'number' ? `[${part}]` : `${i > 0 ? '.' : ''}${String(part)}`))
    .join('');
}

/** What a TOML value is, named by its type: `the string "abc"`, `the number 1.5`, `a table`. */
function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'string')
    return `the string ${JSON.stringify(value.length > 60 ? `${value.slice(0, 59)}…` : value)}`;
  if (typeof value === 'number' || typeof value === 'bigint') return `the number ${String(value)}`;
  if (typeof value === 'boolean') return `the boolean ${value}`;
  if (value instanceof Date) return 'a date';
  if (Array.isArray(value)) return value.length === 0 ? 'an empty array' : `an array of ${value.length}`;
  return 'a table';
}

function httpsOrigin(text: string, ctx: z.core.ParsePayload): string {
  // Checked on the text as written: URL parsing would silently drop an empty `?` or `#`.
  const match = /^https:\/\/([^/?#@\s\\]+)\/?$/.exec(text);
  let url: URL | undefined;
  try {
    url = match ? new URL(text) : undefined;
  } catch {
    url = undefined;
  }
  if (!url || url.username || url.password || !url.hostname) {
    ctx.issues.push({ code: 'custom', message: 'not an https origin', input: text });
    return z.NEVER;
  }
  return url.origin;
}

function expandHome(entry: string, home: string): string {
  if (entry === '~') return home;
  if (entry.startsWith('~/')) return `${home}/${entry.slice(2)}`;
  return entry;
}
