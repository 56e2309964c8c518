import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { DogsledError } from '../../../service/core/common/errors.js';
import { DEFAULT_CONFIG, loadConfig } from '../../../service/state/config/config.js';
import { fixtureTree, tempDir } from '../../helpers/tree.js';

const HOME = '/home/ada';

async function configFile(toml: string): Promise<string> {
  const dir = await fixtureTree({ 'config.toml': toml });
  return join(dir, 'config.toml');
}

/** The one-line error loading `toml` produces, with the file's path replaced by P. */
async function errorOf(toml: string): Promise<string> {
  const path = await configFile(toml);
  const error = await loadConfig(path, false, HOME).then(
    () => expect.fail('expected an error'),
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(DogsledError);
  const message = (error as DogsledError).message;
  expect(message).not.toContain('\n');
  return message.replace(path, 'P');
}

const TTL_RULE = 'a positive integer of milliseconds or a duration such as "90s", at most 365 days';

describe('loadConfig', () => {
  test('a missing file that nobody named yields the defaults and creates nothing', async () => {
    const dir = await tempDir();
    expect(await loadConfig(join(dir, 'dogsled', 'config.toml'), false, HOME)).toEqual(DEFAULT_CONFIG);
    expect(await readdir(dir)).toEqual([]);
  });

  test('the defaults are the ones the spec lists', () => {
    expect(DEFAULT_CONFIG).toEqual({
      free_core_fraction_min: 0.25,
      memory_reserve_bytes: 3221225472,
      disk_free_min_percent: 15,
      reservation_load: 1.0,
      reservation_ttl_ms: 90000,
      remote_command: ['dogsled'],
      cleanup: { repositories: [], repository_paths: [] },
      terminal: 'auto',
      quota: { management_url: null, hold_when_exhausted: true },
      hosts: [],
      prices: { as_of: null, models: {} },
      fleet: { bus: [], id: null, creds: null, tls_ca: null },
      budget: { owner_usd_per_day: null, host_usd_per_day: null, hosts: {} },
    });
  });

  test('[budget] sets what each owner and each host may spend a day, and a host its own', async () => {
    const config = await loadConfig(
      await configFile(`[budget.owner]
usd_per_day = 20
[budget.host]
usd_per_day = 55.5
[budget.hosts."big-gpu"]
usd_per_day = 120
[budget.hosts.local]
usd_per_day = 5
`),
      false,
      HOME,
    );
    expect(config.budget).toEqual({
      owner_usd_per_day: 20,
      host_usd_per_day: 55.5,
      hosts: { 'big-gpu': 120, local: 5 },
    });
  });

  test('[prices] prices models over the shipped table, dated', async () => {
    const config = await loadConfig(
      await configFile(`[prices]
as_of = 2026-02-01
[prices.models."Llama-3-70B"]
input = 0.5
output = 1.5
[prices.models."gpt-5"]
input = 1
output = 8
cache_read = 0.1
cache_write = 1
`),
      false,
      HOME,
    );
    expect(config.prices).toEqual({
      as_of: '2026-02-01',
      models: {
        // Without cache prices, cached tokens cost what input does.
        'llama-3-70b': { input: 0.5, output: 1.5, cache_read: 0.5, cache_write: 0.5 },
        'gpt-5': { input: 1, output: 8, cache_read: 0.1, cache_write: 1 },
      },
    });
  });

  test.each([
    [
      '[prices]\nas_of = "2026-2-1"',
      'prices.as_of: expected a date written YYYY-MM-DD, found the string "2026-2-1"',
    ],
    ['[prices]\ncurrency = "EUR"', 'unknown key "prices.currency"'],
    ['[prices.models.gpt-5]\ninput = 1\noutput = 2\ncached = 1', 'unknown key "prices.models.gpt-5.cached"'],
    [
      '[prices.models.gpt-5]\ninput = -1\noutput = 2',
      'prices.models.price: expected a number >= 0 of US dollars per million tokens, found the number -1 at prices.models.gpt-5.input',
    ],
    [
      '[prices.models.gpt-5]\ninput = 1',
      'prices.models.price: expected a number >= 0 of US dollars per million tokens, found nothing at prices.models.gpt-5.output',
    ],
    [
      '[prices.models."a\\u001b[2Jb"]\ninput = 1\noutput = 1',
      'prices.models.name: expected a model id without control characters, at most 80 characters, found the string',
    ],
    ['[prices]\nmodels = 3', 'prices.models: expected a table of models'],
    ['[budget]\nusd_per_day = 5', 'unknown key "budget.usd_per_day"'],
    ['[budget.owner]\nusd_per_day = 5\nusd_per_week = 9', 'unknown key "budget.owner.usd_per_week"'],
    ['[budget.hosts.gpu]\nusd_per_day = 5\nusd = 9', 'unknown key "budget.hosts.gpu.usd"'],
    [
      '[budget.owner]\nusd_per_day = 0',
      'budget.owner.usd_per_day: expected a number > 0 of US dollars, at most 1000000, found the number 0',
    ],
    [
      '[budget.host]\nusd_per_day = "20"',
      'budget.host.usd_per_day: expected a number > 0 of US dollars, at most 1000000, found the string "20"',
    ],
    [
      '[budget.hosts.gpu]\nusd_per_day = 1e9',
      'budget.hosts.usd_per_day: expected a number > 0 of US dollars, at most 1000000, found the number 1000000000 at budget.hosts.gpu.usd_per_day',
    ],
    ['[budget.hosts.gpu]\ncap = 1', 'unknown key "budget.hosts.gpu.cap"'],
    [
      '[budget.hosts]\ngpu = 5',
      'budget.hosts: expected a table of hosts ([budget.hosts."ID"] with usd_per_day), found the number 5 at budget.hosts.gpu',
    ],
    [
      '[budget.hosts."a b"]\nusd_per_day = 5',
      'budget.hosts.id: expected a host id: letters, digits, ".", "_" or "-", at most 64, found the string "a b"',
    ],
    ['[budget]\nowner = 5', 'budget.owner: expected a table with usd_per_day, found the number 5'],
    [
      '[budget.owner]',
      'budget.owner.usd_per_day: expected a number > 0 of US dollars, at most 1000000, found nothing',
    ],
  ])('refuses %j naming the key', async (toml, message) => {
    const line = await errorOf(toml);
    expect(line).toContain(message);
    expect(line).not.toContain('\u001b');
  });

  test('a missing file named by --config or $DOGSLED_CONFIG is an error', async () => {
    const path = join(await tempDir(), 'nope.toml');
    await expect(loadConfig(path, true, HOME)).rejects.toThrow(
      new DogsledError(`config ${path}: file not found`),
    );
  });

  test('parses every key and expands ~/ in cleanup repositories', async () => {
    const path = await configFile(`
free_core_fraction_min = 0.5
memory_reserve_bytes = 1073741824
disk_free_min_percent = 20
reservation_load = 0.5
reservation_ttl_ms = "2m"
remote_command = ["/usr/local/bin/dogsled"]
terminal = "tmux"

[cleanup]
repositories = ["~/.config/mise", "/srv/repo", "~"]

[quota]
management_url = "https://Admin.example.net:8443/"
hold_when_exhausted = false

[[hosts]]
id = "netcup"

[[hosts]]
id = "m-2"
label = "momokaya-2"
target = "me@10.0.0.2"
enabled = false
`);
    const before = await readdir(join(path, '..'));
    expect(await loadConfig(path, true, HOME)).toEqual({
      free_core_fraction_min: 0.5,
      memory_reserve_bytes: 1073741824,
      disk_free_min_percent: 20,
      reservation_load: 0.5,
      reservation_ttl_ms: 120_000,
      remote_command: ['/usr/local/bin/dogsled'],
      cleanup: {
        repositories: ['~/.config/mise', '/srv/repo', '~'],
        repository_paths: ['/home/ada/.config/mise', '/srv/repo', '/home/ada'],
      },
      terminal: 'tmux',
      quota: { management_url: 'https://admin.example.net:8443', hold_when_exhausted: false },
      hosts: [
        { id: 'netcup', label: 'netcup', target: 'netcup', enabled: true },
        { id: 'm-2', label: 'momokaya-2', target: 'me@10.0.0.2', enabled: false },
      ],
      prices: DEFAULT_CONFIG.prices,
      fleet: { bus: [], id: null, creds: null, tls_ca: null },
      budget: DEFAULT_CONFIG.budget,
    });
    expect(await readdir(join(path, '..'))).toEqual(before);
  });

  test('[fleet] takes one bus URL or a list, an id, and paths with ~/ expanded', async () => {
    const one = await configFile('[fleet]\nbus = "nats://nats.example:4222"\n');
    expect((await loadConfig(one, false, HOME)).fleet).toEqual({
      bus: ['nats://nats.example:4222'],
      id: null,
      creds: null,
      tls_ca: null,
    });
    const all = await configFile(
      '[fleet]\nbus = ["tls://a.example:4222", "nats://10.0.0.9"]\nid = "alpha"\ncreds = "~/.config/dogsled/nats.creds"\ntls_ca = "/etc/ssl/nats-ca.pem"\n',
    );
    expect((await loadConfig(all, false, HOME)).fleet).toEqual({
      bus: ['tls://a.example:4222', 'nats://10.0.0.9'],
      id: 'alpha',
      creds: '/home/ada/.config/dogsled/nats.creds',
      tls_ca: '/etc/ssl/nats-ca.pem',
    });
  });

  test('a partial file keeps the defaults for the keys it leaves out', async () => {
    const path = await configFile('reservation_ttl_ms = 45000\n[quota]\n');
    expect(await loadConfig(path, false, HOME)).toEqual({ ...DEFAULT_CONFIG, reservation_ttl_ms: 45_000 });
  });

  test.each([
    ['an unknown top-level key', 'colour = "blue"', 'config P: unknown key "colour"'],
    ['a [hooks] table', '[hooks]\nsetup = "make"', 'config P: unknown key "hooks"'],
    ['an unknown key inside [cleanup]', '[cleanup]\nfoo = 1', 'config P: unknown key "cleanup.foo"'],
    ['an unknown key inside [quota]', '[quota]\nkey = "secret"', 'config P: unknown key "quota.key"'],
    ['an unknown key inside [fleet]', '[fleet]\npassword = "x"', 'config P: unknown key "fleet.password"'],
    [
      'a fleet that is not a table',
      'fleet = "nats://a"',
      'config P: fleet: expected a table, found the string "nats://a"',
    ],
    [
      'a bus URL of another scheme',
      '[fleet]\nbus = "http://a:4222"',
      'config P: fleet.bus: expected a NATS server URL such as "nats://nats.example:4222" (nats:// or tls://, no credentials: use fleet.creds), or a non-empty array of them, found the string "http://a:4222"',
    ],
    [
      'a bus URL with a password',
      '[fleet]\nbus = ["nats://a", "nats://me:hunter2@b:4222"]',
      'config P: fleet.bus: expected a NATS server URL such as "nats://nats.example:4222" (nats:// or tls://, no credentials: use fleet.creds), or a non-empty array of them, found the string "nats://***@b:4222" at fleet.bus[1]',
    ],
    [
      'an empty bus list',
      '[fleet]\nbus = []',
      'config P: fleet.bus: expected a NATS server URL such as "nats://nats.example:4222" (nats:// or tls://, no credentials: use fleet.creds), or a non-empty array of them, found an empty array',
    ],
    [
      'a fleet id that names no cache file',
      '[fleet]\nid = "../x"',
      'config P: fleet.id: expected a host id for the bus: letters, digits, "_" or "-" (no ".": it is one token of a NATS subject), at most 64, not "local", found the string "../x"',
    ],
    [
      'a fleet id with a dot (a subject token of its own)',
      '[fleet]\nid = "eu.alpha"',
      'config P: fleet.id: expected a host id for the bus: letters, digits, "_" or "-" (no ".": it is one token of a NATS subject), at most 64, not "local", found the string "eu.alpha"',
    ],
    [
      'a fleet id "local"',
      '[fleet]\nid = "local"',
      'config P: fleet.id: expected a host id for the bus: letters, digits, "_" or "-" (no ".": it is one token of a NATS subject), at most 64, not "local", found the string "local"',
    ],
    [
      'creds that are not a path',
      '[fleet]\ncreds = 5',
      'config P: fleet.creds: expected the path of a NATS credentials file, found the number 5',
    ],
    [
      'a tls_ca with a control character',
      '[fleet]\ntls_ca = "a\\u001bb"',
      'config P: fleet.tls_ca: expected the path of a PEM file of certificate authorities, found the string "a\\u001bb"',
    ],
    ['two unknown keys', 'a = 1\nb = 2', 'config P: unknown keys "a", "b"'],
    [
      'malformed TOML',
      'reservation_load = 1\nfree_core_fraction_min = = 2',
      'config P: malformed TOML at line 2: invalid value',
    ],
    [
      'a fraction above 1',
      'free_core_fraction_min = 1.5',
      'config P: free_core_fraction_min: expected a number between 0 and 1, found the number 1.5',
    ],
    [
      'a fraction given as text',
      'free_core_fraction_min = "0.5"',
      'config P: free_core_fraction_min: expected a number between 0 and 1, found the string "0.5"',
    ],
    [
      'a fraction given as a word',
      'free_core_fraction_min = "abc"',
      'config P: free_core_fraction_min: expected a number between 0 and 1, found the string "abc"',
    ],
    [
      'a fraction given as a table',
      '[free_core_fraction_min]\nx = 1',
      'config P: free_core_fraction_min: expected a number between 0 and 1, found a table',
    ],
    [
      'negative memory',
      'memory_reserve_bytes = -1',
      'config P: memory_reserve_bytes: expected a non-negative integer (bytes), found the number -1',
    ],
    [
      'fractional memory',
      'memory_reserve_bytes = 1.5',
      'config P: memory_reserve_bytes: expected a non-negative integer (bytes), found the number 1.5',
    ],
    [
      'a disk percent over 100',
      'disk_free_min_percent = 101',
      'config P: disk_free_min_percent: expected a number between 0 and 100, found the number 101',
    ],
    [
      'a negative reservation load',
      'reservation_load = -0.5',
      'config P: reservation_load: expected a number >= 0, found the number -0.5',
    ],
    [
      'a bad duration string',
      'reservation_ttl_ms = "1.5h"',
      'config P: reservation_ttl_ms: bad duration "1.5h": use an integer with ms, s, m or h (90s, 10m, 1h)',
    ],
    [
      'a zero duration',
      'reservation_ttl_ms = "0s"',
      `config P: reservation_ttl_ms: expected ${TTL_RULE}, found the string "0s"`,
    ],
    [
      'a negative ttl',
      'reservation_ttl_ms = -5',
      `config P: reservation_ttl_ms: expected ${TTL_RULE}, found the number -5`,
    ],
    [
      'a ttl over a year',
      'reservation_ttl_ms = 31536000001',
      `config P: reservation_ttl_ms: expected ${TTL_RULE}, found the number 31536000001`,
    ],
    [
      'a ttl duration over a year',
      'reservation_ttl_ms = "9000h"',
      'config P: reservation_ttl_ms: duration "9000h" is longer than the limit of 365 days (8760h)',
    ],
    [
      'a ttl given as a boolean',
      'reservation_ttl_ms = true',
      `config P: reservation_ttl_ms: expected ${TTL_RULE}, found the boolean true`,
    ],
    [
      'an empty remote command',
      'remote_command = []',
      'config P: remote_command: expected a non-empty array of non-empty strings, found an empty array',
    ],
    [
      'an empty remote command word',
      'remote_command = ["dogsled", ""]',
      'config P: remote_command: expected a non-empty array of non-empty strings, found the string "" at remote_command[1]',
    ],
    [
      'a remote command string',
      'remote_command = "dogsled"',
      'config P: remote_command: expected a non-empty array of non-empty strings, found the string "dogsled"',
    ],
    [
      'a non-string repository',
      '[cleanup]\nrepositories = [1]',
      'config P: cleanup.repositories: expected an array of strings, found the number 1 at cleanup.repositories[0]',
    ],
    ['cleanup as a value', 'cleanup = 1', 'config P: cleanup: expected a table, found the number 1'],
    [
      'an unknown terminal',
      'terminal = "screen"',
      'config P: terminal: expected "auto" or "tmux", found the string "screen"',
    ],
    [
      'a hold_when_exhausted that is not a boolean',
      '[quota]\nhold_when_exhausted = "yes"',
      'config P: quota.hold_when_exhausted: expected true or false, found the string "yes"',
    ],
    [
      'an unknown key in a table and at the top',
      'x = 1\n[cleanup]\nfoo = 1',
      'config P: unknown key "cleanup.foo"',
    ],
    ['an unknown key in a host', '[[hosts]]\nid = "a"\nport = 22', 'config P: unknown key "hosts.0.port"'],
    [
      'a fraction that is not a number',
      'free_core_fraction_min = nan',
      'config P: free_core_fraction_min: expected a number between 0 and 1, found the number NaN',
    ],
    [
      'an infinite load',
      'reservation_load = inf',
      'config P: reservation_load: expected a number >= 0, found the number Infinity',
    ],
    [
      'memory past the safe integers',
      'memory_reserve_bytes = 1e300',
      'config P: memory_reserve_bytes: expected a non-negative integer (bytes), found the number 1e+300',
    ],
    [
      'a date for a load',
      'reservation_load = 1979-05-27',
      'config P: reservation_load: expected a number >= 0, found a date',
    ],
    [
      'hosts as a value',
      'hosts = 1',
      'config P: hosts: expected an array of tables ([[hosts]] with id, and optionally label, target and enabled), found the number 1',
    ],
    [
      'a host that is not a table',
      'hosts = [1]',
      'config P: hosts: expected an array of tables ([[hosts]] with id, and optionally label, target and enabled), found the number 1 at hosts[0]',
    ],
    [
      'a host without an id',
      '[[hosts]]\nlabel = "a"',
      'config P: hosts.id: expected a host id: letters, digits, ".", "_" or "-", at most 64, not "local", found nothing at hosts[0].id',
    ],
    [
      'a second host whose enabled is text',
      '[[hosts]]\nid = "a"\n[[hosts]]\nid = "b"\nenabled = "no"',
      'config P: hosts.enabled: expected a boolean, found the string "no" at hosts[1].enabled',
    ],
    [
      "the first wrong key, in the order of the file's keys",
      'terminal = "x"\nreservation_load = -1',
      'config P: reservation_load: expected a number >= 0, found the number -1',
    ],
    [
      'a quota URL that is a number',
      '[quota]\nmanagement_url = 5',
      'config P: quota.management_url: expected an https origin such as "https://host" or "https://host:8443" (no path, query, fragment or credentials), found the number 5',
    ],
  ])(
    '%s is a one-line error naming the file, the key, what it expects and what it found',
    async (_name, toml, expected) => {
      expect(await errorOf(toml)).toBe(expected);
    },
  );

  const URL_RULE =
    'config P: quota.management_url: expected an https origin such as "https://host" or "https://host:8443" (no path, query, fragment or credentials), found the string';

  test.each([
    ['with a path', 'https://admin.example.net/api'],
    ['over http', 'http://admin.example.net'],
    ['with a query', 'https://admin.example.net/?x=1'],
    ['with an empty query', 'https://admin.example.net?'],
    ['with a fragment', 'https://admin.example.net#top'],
    ['without a host', 'https://'],
    ['with a bad port', 'https://admin.example.net:99999'],
  ])('a quota URL %s is refused', async (_name, url) => {
    expect(await errorOf(`[quota]\nmanagement_url = "${url}"`)).toBe(`${URL_RULE} "${url}"`);
  });

  test.each([
    ['https://user:secret@admin.example.net', 'https://***@admin.example.net'],
    ['https://user@admin.example.net/x', 'https://***@admin.example.net/x'],
    ['http://u:p@h:1@admin.example.net', 'http://***@admin.example.net'],
  ])('a refused quota URL %s keeps its credentials out of the error', async (url, shown) => {
    const message = await errorOf(`[quota]\nmanagement_url = "${url}"`);
    expect(message).toBe(`${URL_RULE} "${shown}"`);
    expect(message).not.toMatch(/secret|user|u:p/);
  });
});
