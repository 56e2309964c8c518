// What config.toml may hold, checked by hand rather than by a schema library: every command that
// judges a host (place, status, run, the hooks) reads this file, and building and running zod
// schemas for it was a fifth of such a command's own time. Unknown keys are named first (a typo
// usually explains the rest), then the first key, in the order below, that is wrong, as
// `<key>: expected <rule>, found <what the file holds>[ at <path>]`.

import { MAX_DURATION_MS, parseDuration } from '../../core/common/duration.js';
import { BUS_ID_PATTERN } from '../../core/fleet/bus-rules.js';
import type { ModelPrice } from '../../core/receipts/prices.js';
import { clip } from '../../core/text/clean.js';

/** The file's keys with their defaults not yet filled in. */
export interface ConfigFile {
  free_core_fraction_min?: number;
  memory_reserve_bytes?: number;
  disk_free_min_percent?: number;
  reservation_load?: number;
  reservation_ttl_ms?: number;
  remote_command?: string[];
  cleanup?: { repositories?: string[] };
  terminal?: 'auto' | 'tmux';
  quota?: { management_url?: string; hold_when_exhausted?: boolean };
  hosts?: Array<{ id: string; label?: string; target?: string; enabled?: boolean }>;
  prices?: { as_of?: string; models?: Record<string, ModelPrice> };
  fleet?: { bus?: string[]; id?: string; creds?: string; tls_ca?: string };
  budget?: { owner?: number; host?: number; hosts?: Record<string, number> };
}

/** A host id names its cache file (peers/ID.json): letters, digits, `.`, `_`, `-`; never `local`. */
export const HOST_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const LABEL = /^[^\u0000-\u001f\u007f]+$/;
const TARGET = /^[^-\s\u0000-\u001f\u007f][^\s\u0000-\u001f\u007f]*$/;

const RULES = {
  free_core_fraction_min: 'a number between 0 and 1',
  memory_reserve_bytes: 'a non-negative integer (bytes)',
  disk_free_min_percent: 'a number between 0 and 100',
  reservation_load: 'a number >= 0',
  reservation_ttl_ms: 'a positive integer of milliseconds or a duration such as "90s", at most 365 days',
  remote_command: 'a non-empty array of non-empty strings',
  cleanup: 'a table',
  'cleanup.repositories': 'an array of strings',
  terminal: '"auto" or "tmux"',
  quota: 'a table',
  'quota.management_url':
    'an https origin such as "https://host" or "https://host:8443" (no path, query, fragment or credentials)',
  'quota.hold_when_exhausted': 'true or false',
  hosts: 'an array of tables ([[hosts]] with id, and optionally label, target and enabled)',
  'hosts.id': 'a host id: letters, digits, ".", "_" or "-", at most 64, not "local"',
  'hosts.label': 'a non-empty string without control characters',
  'hosts.target': 'an ssh destination: no spaces or control characters, not starting with "-"',
  'hosts.enabled': 'a boolean',
  prices: 'a table',
  'prices.as_of': 'a date written YYYY-MM-DD',
  'prices.models': 'a table of models ([prices.models."MODEL"] with input, output, cache_read, cache_write)',
  'prices.models.name': 'a model id without control characters, at most 80 characters',
  'prices.models.price': 'a number >= 0 of US dollars per million tokens',
  fleet: 'a table',
  'fleet.bus':
    'a NATS server URL such as "nats://nats.example:4222" (nats:// or tls://, no credentials: use fleet.creds), or a non-empty array of them',
  'fleet.id':
    'a host id for the bus: letters, digits, "_" or "-" (no ".": it is one token of a NATS subject), at most 64, not "local"',
  'fleet.creds': 'the path of a NATS credentials file',
  'fleet.tls_ca': 'the path of a PEM file of certificate authorities',
  budget: 'a table ([budget.owner], [budget.host] and [budget.hosts."ID"], each with usd_per_day)',
  'budget.owner': 'a table with usd_per_day',
  'budget.host': 'a table with usd_per_day',
  'budget.hosts': 'a table of hosts ([budget.hosts."ID"] with usd_per_day)',
  'budget.hosts.id': 'a host id: letters, digits, ".", "_" or "-", at most 64',
  'budget.owner.usd_per_day': 'a number > 0 of US dollars, at most 1000000',
  'budget.host.usd_per_day': 'a number > 0 of US dollars, at most 1000000',
  'budget.hosts.usd_per_day': 'a number > 0 of US dollars, at most 1000000',
} as const;

type Rule = keyof typeof RULES;
type Path = ReadonlyArray<string | number>;

/** Thrown inside this module only: the one line that checkConfigFile's caller prefixes with the file. */
class Problem {
  constructor(readonly text: string) {}
}

/** The parsed document, checked; throws the problem's line through `fail`. */
export function checkConfigFile<E>(data: unknown, fail: (problem: string) => E): ConfigFile {
  try {
    if (!isTable(data)) throw new Problem('not a table of settings');
    const file = data;
    const unknown = unknownKeys(file);
    if (unknown) throw new Problem(unknown);
    return checked(file);
  } catch (error) {
    if (error instanceof Problem) throw fail(error.text);
    throw error;
  }
}

const TOP = [
  'free_core_fraction_min',
  'memory_reserve_bytes',
  'disk_free_min_percent',
  'reservation_load',
  'reservation_ttl_ms',
  'remote_command',
  'cleanup',
  'terminal',
  'quota',
  'hosts',
  'prices',
  'fleet',
  'budget',
];
const NESTED: Record<string, readonly string[]> = {
  cleanup: ['repositories'],
  quota: ['management_url', 'hold_when_exhausted'],
  prices: ['as_of', 'models'],
  fleet: ['bus', 'id', 'creds', 'tls_ca'],
  budget: ['owner', 'host', 'hosts'],
};
const BUDGET_KEYS = ['usd_per_day'];
const PRICE_KEYS = ['input', 'output', 'cache_read', 'cache_write'];
const HOST_KEYS = ['id', 'label', 'target', 'enabled'];

/** The first table's unknown keys, inner tables before the top level, as `unknown key "a.b"`. */
function unknownKeys(file: Record<string, unknown>): string | undefined {
  const tables: Array<[Path, Record<string, unknown>, readonly string[]]> = [];
  for (const key of ['cleanup', 'quota', 'prices', 'fleet', 'budget'])
    if (isTable(file[key])) tables.push([[key], file[key], NESTED[key] ?? []]);
  const models = isTable(file.prices) ? file.prices.models : undefined;
  if (isTable(models))
    for (const [name, price] of Object.entries(models))
      if (isTable(price)) tables.unshift([['prices', 'models', name], price, PRICE_KEYS]);
  const budget = isTable(file.budget) ? file.budget : undefined;
  for (const key of ['owner', 'host'])
    if (isTable(budget?.[key])) tables.unshift([['budget', key], budget[key], BUDGET_KEYS]);
  if (isTable(budget?.hosts))
    for (const [id, entry] of Object.entries(budget.hosts))
      if (isTable(entry)) tables.unshift([['budget', 'hosts', id], entry, BUDGET_KEYS]);
  if (Array.isArray(file.hosts))
    file.hosts.forEach((host, i) => {
      if (isTable(host)) tables.push([['hosts', i], host, HOST_KEYS]);
    });
  tables.push([[], file, TOP]);
  for (const [path, value, known] of tables) {
    const names = Object.keys(value).filter((key) => !known.includes(key));
    if (names.length === 0) continue;
    const quoted = names.map((key) => `"${[...path, key].join('.')}"`);
    return `unknown key${names.length > 1 ? 's' : ''} ${quoted.join(', ')}`;
  }
  return undefined;
}

function checked(file: Record<string, unknown>): ConfigFile {
  const out: ConfigFile = {};
  const number = (key: Rule & keyof ConfigFile, ok: (n: number) => boolean) => {
    const value = file[key];
    if (value === undefined) return undefined;
    if (typeof value === 'number' && Number.isFinite(value) && ok(value)) return value;
    throw expected(key, value);
  };
  out.free_core_fraction_min = number('free_core_fraction_min', (n) => n >= 0 && n <= 1);
  out.memory_reserve_bytes = number('memory_reserve_bytes', (n) => Number.isSafeInteger(n) && n >= 0);
  out.disk_free_min_percent = number('disk_free_min_percent', (n) => n >= 0 && n <= 100);
  out.reservation_load = number('reservation_load', (n) => n >= 0);
  out.reservation_ttl_ms = ttl(file.reservation_ttl_ms);
  out.remote_command = strings(file.remote_command, ['remote_command'], 'remote_command', true);
  if (file.cleanup !== undefined) {
    const cleanup = table(file.cleanup, ['cleanup'], 'cleanup');
    const repositories = strings(
      cleanup.repositories,
      ['cleanup', 'repositories'],
      'cleanup.repositories',
      false,
    );
    out.cleanup = repositories === undefined ? {} : { repositories };
  }
  if (file.terminal !== undefined) {
    if (file.terminal !== 'auto' && file.terminal !== 'tmux') throw expected('terminal', file.terminal);
    out.terminal = file.terminal;
  }
  if (file.quota !== undefined) out.quota = quota(table(file.quota, ['quota'], 'quota'));
  if (file.hosts !== undefined) out.hosts = hosts(file.hosts);
  if (file.prices !== undefined) out.prices = prices(table(file.prices, ['prices'], 'prices'));
  if (file.fleet !== undefined) out.fleet = fleet(table(file.fleet, ['fleet'], 'fleet'));
  if (file.budget !== undefined) out.budget = budget(table(file.budget, ['budget'], 'budget'));
  // A key the file leaves out stays undefined: the caller fills in the default.
  return out;
}

function ttl(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value > 0 && value <= MAX_DURATION_MS)
    return value;
  if (typeof value === 'string') {
    const parsed = parseDuration(value);
    // Its own words say what is wrong with the text (its unit, or the year's limit).
    if (!parsed.ok) throw new Problem(`reservation_ttl_ms: ${parsed.error}`);
    if (parsed.ms > 0) return parsed.ms;
  }
  throw expected('reservation_ttl_ms', value);
}

/** An array of strings, non-empty ones in a non-empty array when `nonEmpty`. */
function strings(value: unknown, path: Path, rule: Rule, nonEmpty: boolean): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || (nonEmpty && value.length === 0)) throw expected(rule, value);
  value.forEach((word, i) => {
    if (typeof word !== 'string' || (nonEmpty && word === '')) throw expected(rule, word, [...path, i]);
  });
  return value as string[];
}

function quota(value: Record<string, unknown>): NonNullable<ConfigFile['quota']> {
  const out: NonNullable<ConfigFile['quota']> = {};
  const url = value.management_url;
  if (url !== undefined) {
    const origin = typeof url === 'string' ? httpsOrigin(url) : undefined;
    // A URL's userinfo is a secret: the error line shows where it was, not what.
    if (origin === undefined)
      throw expected('quota.management_url', typeof url === 'string' ? withoutUserinfo(url) : url);
    out.management_url = origin;
  }
  const hold = value.hold_when_exhausted;
  if (hold !== undefined) {
    if (typeof hold !== 'boolean') throw expected('quota.hold_when_exhausted', hold);
    out.hold_when_exhausted = hold;
  }
  return out;
}

function hosts(value: unknown): NonNullable<ConfigFile['hosts']> {
  if (!Array.isArray(value)) throw expected('hosts', value);
  return value.map((entry, i) => {
    const host = table(entry, ['hosts', i], 'hosts');
    const at = (key: string): Path => ['hosts', i, key];
    const { id, label, target, enabled } = host;
    if (typeof id !== 'string' || !HOST_ID.test(id) || id === 'local')
      throw expected('hosts.id', id, at('id'));
    if (label !== undefined && (typeof label !== 'string' || !LABEL.test(label)))
      throw expected('hosts.label', label, at('label'));
    if (target !== undefined && (typeof target !== 'string' || !TARGET.test(target)))
      throw expected('hosts.target', target, at('target'));
    if (enabled !== undefined && typeof enabled !== 'boolean')
      throw expected('hosts.enabled', enabled, at('enabled'));
    return {
      id,
      ...(label === undefined ? {} : { label: label as string }),
      ...(target === undefined ? {} : { target: target as string }),
      ...(enabled === undefined ? {} : { enabled: enabled as boolean }),
    };
  });
}

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const MODEL_ID = /^[^\u0000-\u001f\u007f-\u009f]{1,80}$/;

/** `[prices]`: the date they were taken and a table per model, each of its four prices (USD per million). */
function prices(value: Record<string, unknown>): NonNullable<ConfigFile['prices']> {
  const out: NonNullable<ConfigFile['prices']> = {};
  const asOf = value.as_of;
  if (asOf !== undefined) {
    // An unquoted TOML date is a date object; a quoted one must still name a real day.
    const text = asOf instanceof Date ? asOf.toISOString().slice(0, 10) : asOf;
    const day = typeof text === 'string' ? DAY.exec(text) : null;
    if (day === null || Number.isNaN(Date.parse(`${text as string}T00:00:00Z`)))
      throw expected('prices.as_of', asOf);
    out.as_of = text as string;
  }
  if (value.models !== undefined) {
    const models = table(value.models, ['prices', 'models'], 'prices.models');
    const checkedModels: Record<string, ModelPrice> = {};
    for (const [name, entry] of Object.entries(models)) {
      const at: Path = ['prices', 'models', name];
      if (!MODEL_ID.test(name)) throw expected('prices.models.name', name, at);
      const price = table(entry, at, 'prices.models');
      const number = (key: string): number | undefined => {
        const amount = price[key];
        if (amount === undefined) return undefined;
        if (typeof amount === 'number' && Number.isFinite(amount) && amount >= 0) return amount;
        throw expected('prices.models.price', amount, [...at, key]);
      };
      const input = number('input');
      const output = number('output');
      if (input === undefined) throw expected('prices.models.price', undefined, [...at, 'input']);
      if (output === undefined) throw expected('prices.models.price', undefined, [...at, 'output']);
      // Without a cache price, cached tokens cost what input does: an estimate errs high, never low.
      checkedModels[name.toLowerCase()] = {
        input,
        output,
        cache_read: number('cache_read') ?? input,
        cache_write: number('cache_write') ?? input,
      };
    }
    out.models = checkedModels;
  }
  return out;
}

function fleet(value: Record<string, unknown>): NonNullable<ConfigFile['fleet']> {
  const out: NonNullable<ConfigFile['fleet']> = {};
  const { bus, id, creds, tls_ca } = value;
  if (bus !== undefined) {
    const urls = typeof bus === 'string' ? [bus] : bus;
    if (!Array.isArray(urls) || urls.length === 0) throw expected('fleet.bus', bus);
    urls.forEach((url, i) => {
      const at: Path = typeof bus === 'string' ? ['fleet', 'bus'] : ['fleet', 'bus', i];
      // A URL's userinfo is a secret: the error line shows where it was, not what.
      if (typeof url !== 'string' || !busUrl(url))
        throw expected('fleet.bus', typeof url === 'string' ? withoutUserinfo(url) : url, at);
    });
    out.bus = urls as string[];
  }
  if (id !== undefined) {
    if (typeof id !== 'string' || !BUS_ID_PATTERN.test(id) || id === 'local') throw expected('fleet.id', id);
    out.id = id;
  }
  // Paths are named, never read, here: a missing file is the bus's to say when it connects.
  if (creds !== undefined) {
    if (typeof creds !== 'string' || !PATH.test(creds)) throw expected('fleet.creds', creds);
    out.creds = creds;
  }
  if (tls_ca !== undefined) {
    if (typeof tls_ca !== 'string' || !PATH.test(tls_ca)) throw expected('fleet.tls_ca', tls_ca);
    out.tls_ca = tls_ca;
  }
  return out;
}

const PATH = /^[^\u0000-\u001f\u007f]+$/;

/** The largest budget a day: anything above is a typo (cents written as dollars), not a limit. */
const BUDGET_MAX_USD = 1_000_000;

/**
 * `[budget]`: what each owner's children, and the children on each host, may spend in a day before
 * new ones wait (core/receipts/day-budget.ts); `[budget.hosts."ID"]` sets one host's own amount.
 */
function budget(value: Record<string, unknown>): NonNullable<ConfigFile['budget']> {
  const out: NonNullable<ConfigFile['budget']> = {};
  const amount = (entry: unknown, at: Path, which: 'owner' | 'host' | 'hosts'): number => {
    const usd = table(entry, at, `budget.${which}`).usd_per_day;
    if (typeof usd === 'number' && Number.isFinite(usd) && usd > 0 && usd <= BUDGET_MAX_USD) return usd;
    throw expected(`budget.${which}.usd_per_day`, usd, [...at, 'usd_per_day']);
  };
  if (value.owner !== undefined) out.owner = amount(value.owner, ['budget', 'owner'], 'owner');
  if (value.host !== undefined) out.host = amount(value.host, ['budget', 'host'], 'host');
  if (value.hosts !== undefined) {
    const hosts = table(value.hosts, ['budget', 'hosts'], 'budget.hosts');
    const checkedHosts: Record<string, number> = {};
    for (const [id, entry] of Object.entries(hosts)) {
      const at: Path = ['budget', 'hosts', id];
      if (!HOST_ID.test(id)) throw expected('budget.hosts.id', id, at);
      checkedHosts[id] = amount(entry, at, 'hosts');
    }
    out.hosts = checkedHosts;
  }
  return out;
}

/** `nats://host[:port]` or `tls://host[:port]`, nothing after but one `/`, and no userinfo. */
function busUrl(text: string): boolean {
  if (!/^(nats|tls):\/\/[^/?#@\s\\]+\/?$/.test(text)) return false;
  try {
    const url = new URL(text);
    return url.hostname !== '' && !url.username && !url.password;
  } catch {
    return false;
  }
}

function table(value: unknown, path: Path, rule: Rule): Record<string, unknown> {
  if (isTable(value)) return value;
  throw expected(rule, value, path);
}

function isTable(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Date);
}

/** `<rule's key>: expected <rule>, found <value>`, with ` at <path>` when the value is deeper than the key. */
function expected(rule: Rule, value: unknown, path: Path = rule.split('.')): Problem {
  const depth = rule.split('.').length;
  const where = path.length > depth ? ` at ${pathText(path)}` : '';
  return new Problem(`${rule}: expected ${RULES[rule]}, found ${describeValue(value)}${where}`);
}

/** `remote_command[1]`, `cleanup.repositories[0]`, `hosts[0].id`. */
function pathText(path: Path): string {
  return path
    .map((part, i) => (typeof part === 'number' ? `[${part}]` : `${i > 0 ? '.' : ''}${part}`))
    .join('');
}

/** What a TOML value is, named by its type: `the string "abc"`, `the number 1.5`, `a table`. */
function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'string') return `the string ${JSON.stringify(clip(value, 60))}`;
  if (typeof value === 'number' || typeof value === 'bigint') return `the number ${String(value)}`;
  if (typeof value === 'boolean') return `the boolean ${value}`;
  if (value instanceof Date) return 'a date';
  if (Array.isArray(value)) return value.length === 0 ? 'an empty array' : `an array of ${value.length}`;
  return 'a table';
}

/** `scheme://user:secret@host…` as `scheme://***@host…`. */
function withoutUserinfo(text: string): string {
  return text.replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/)[^/?#]*@/, '$1***@');
}

/** `https://host[:port]` with nothing after it but one `/`, normalized by URL; undefined otherwise. */
function httpsOrigin(text: string): string | undefined {
  // Checked on the text as written: URL parsing would silently drop an empty `?` or `#`.
  if (!/^https:\/\/([^/?#@\s\\]+)\/?$/.test(text)) return undefined;
  try {
    const url = new URL(text);
    return url.username || url.password || !url.hostname ? undefined : url.origin;
  } catch {
    return undefined;
  }
}
