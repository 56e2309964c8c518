// What doctor's install section is judged on (core/install-findings.ts), read from this host: the
// service unit through its manager, the service lock, the `dogsled` on PATH, Claude Code's plugin
// records (~/.claude, or $CLAUDE_CONFIG_DIR), Codex's config.toml (~/.codex, or $CODEX_HOME) with
// the hooks the user trusted in /hooks, Herdr's plugin list through the terminal port, and the warm
// supervisor's socket. Reads only; each part that fails says so in its own finding.

import { readFile, realpath } from 'node:fs/promises';
import { dirname, join, normalize } from 'node:path';
import { parse } from 'smol-toml';
import { fileErrorText, messageOf } from '../core/common/errors.js';
import { VERSION } from '../core/common/version.js';
import {
  codexHookKeys,
  type InstallFacts,
  installFindings,
  type PluginRecord,
} from '../core/install/install-findings.js';
import { installLines } from '../core/install/install-lines.js';
import { warmAnswers } from '../jobs/warm-claim.js';
import { findExecutable } from '../process/find-executable.js';
import { selfInvocation } from '../process/self-invocation.js';
import { readServiceState } from '../state/records/service-lock.js';
import type { TerminalPort } from '../terminal/port.js';
import { serviceStatus } from './manager.js';
import type { ServiceManagerIO } from './service-files.js';

export interface InstallSectionIO extends ServiceManagerIO {
  /** Herdr's port when Herdr answered this doctor run, else why there is none. */
  herdr: { port: TerminalPort } | { why: string };
  /** This dogsled's version (the bundle's); plugins are held to it. */
  version?: string;
}

export async function installSection(io: InstallSectionIO) {
  return installFindings(await installFacts(io));
}

export async function installFacts(io: InstallSectionIO): Promise<InstallFacts> {
  const version = io.version ?? VERSION;
  const [service, lock, onPath, claude, codex, herdr] = await Promise.all([
    unitFacts(io),
    readServiceState(io.paths).then((s) => ({ up: s.state === 'up', pid: s.holder?.pid ?? null })),
    onPathReal(io, 'dogsled'),
    claudeFacts(io),
    codexFacts(io),
    herdrFacts(io),
  ]);
  return {
    version,
    lines: installLines(version),
    service,
    lock,
    onPath,
    origin: await originOf(io),
    claude,
    codex,
    herdr,
    warm: lock.up ? await warmAnswers(io.paths) : null,
  };
}

async function unitFacts(io: InstallSectionIO): Promise<InstallFacts['service']> {
  let report: Awaited<ReturnType<typeof serviceStatus>>;
  try {
    report = await serviceStatus(io);
  } catch (error) {
    return { unsupported: messageOf(error) };
  }
  // What the unit runs: `node ENTRY serve`, or through mise, `mise x -- node ENTRY serve`.
  const command = report.command ?? [];
  const entry = command.at(-1) === 'serve' ? command.at(-2) : undefined;
  return {
    manager: report.manager,
    installed: report.installed,
    active: report.active,
    pid: report.pid,
    problem: report.problem,
    entry: entry === undefined ? null : await realpath(entry).catch(() => entry),
  };
}

/** `<prefix>/lib/node_modules/dogsled/dist/dogsled.cjs` beside `<prefix>/bin/dogsled`, or a checkout. */
async function originOf(io: InstallSectionIO): Promise<InstallFacts['origin']> {
  const [, entry] = io.self ?? selfInvocation();
  if (entry === undefined) return { kind: 'unknown' };
  const prefix = /^(.*)\/lib\/node_modules\/dogsled\/dist\/dogsled\.cjs$/.exec(entry)?.[1];
  if (prefix !== undefined && (await findExecutable('dogsled', io.home, join(prefix, 'bin'))) !== undefined) {
    return { kind: 'prefix', bin: join(prefix, 'bin') };
  }
  const root = dirname(dirname(entry));
  const pkg = (await jsonFile(join(root, 'package.json')).catch(() => undefined)) as
    | { name?: unknown }
    | undefined;
  if (pkg?.name === 'dogsled' && (await jsonFile(join(root, 'package-lock.json')).catch(() => undefined))) {
    return { kind: 'checkout', dir: root };
  }
  return { kind: 'unknown' };
}

async function onPathReal(io: InstallSectionIO, name: string): Promise<string | null> {
  const found = await findExecutable(name, io.home, io.env.PATH);
  return found === undefined ? null : await realpath(found).catch(() => found);
}

/** JSON of a file, undefined when it does not exist; anything else unreadable throws. */
async function jsonFile(path: string): Promise<unknown> {
  try {
    const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
    return text === undefined ? undefined : JSON.parse(text);
  } catch (error) {
    throw new Error(`${path}: ${firstLine(error)}`);
  }
}

/**
 * An error as one line: a file's refusal in words (fileErrorText: Node's own message names the
 * syscall, and from Node 26 the path again), the TOML and JSON parsers' first line without the
 * code frame they add below it.
 */
function firstLine(error: unknown): string {
  return fileErrorText(error).split('\n')[0] ?? '';
}

async function claudeFacts(io: InstallSectionIO): Promise<InstallFacts['claude']> {
  const found = (await findExecutable('claude', io.home, io.env.PATH)) !== undefined;
  const dir = io.env.CLAUDE_CONFIG_DIR || join(io.home, '.claude');
  try {
    const installed = (await jsonFile(join(dir, 'plugins', 'installed_plugins.json'))) as
      | { plugins?: Record<string, Array<{ version?: unknown }>> }
      | undefined;
    const id = Object.keys(installed?.plugins ?? {}).find((key) => key.startsWith('dogsled@'));
    if (id === undefined) return { found, plugin: null, error: null };
    const settings = (await jsonFile(join(dir, 'settings.json'))) as
      | { enabledPlugins?: Record<string, unknown> }
      | undefined;
    const version = installed?.plugins?.[id]?.[0]?.version;
    const plugin: PluginRecord = {
      id,
      version: typeof version === 'string' ? version : null,
      enabled: settings?.enabledPlugins?.[id] !== false,
    };
    return { found, plugin, error: null };
  } catch (error) {
    return { found, plugin: null, error: firstLine(error) };
  }
}

async function codexFacts(io: InstallSectionIO): Promise<InstallFacts['codex']> {
  const found = (await findExecutable('codex', io.home, io.env.PATH)) !== undefined;
  const home = io.env.CODEX_HOME || join(io.home, '.codex');
  const file = join(home, 'config.toml');
  try {
    const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return '';
      throw error;
    });
    const config = parse(text) as {
      plugins?: Record<string, { enabled?: unknown }>;
      hooks?: { state?: Record<string, { trusted_hash?: unknown }> };
    };
    const id = Object.keys(config.plugins ?? {}).find((key) => key.startsWith('dogsled@'));
    if (id === undefined) return { found, plugin: null, hooks: null, error: null };
    // Codex keeps no version in config.toml: what it runs is the plugin of its marketplace's ref.
    const plugin: PluginRecord = { id, version: null, enabled: config.plugins?.[id]?.enabled !== false };
    const keys = await ownCodexHookKeys(id, io);
    const state = config.hooks?.state ?? {};
    const trusted = keys.filter((key) => typeof state[key]?.trusted_hash === 'string').length;
    return { found, plugin, hooks: keys.length > 0 ? { total: keys.length, trusted } : null, error: null };
  } catch (error) {
    return { found, plugin: null, hooks: null, error: `${file}: ${firstLine(error)}` };
  }
}

/** The `[hooks.state]` keys of this dogsled's Codex hooks (plugins/dogsled beside its dist/). */
async function ownCodexHookKeys(pluginId: string, io: InstallSectionIO): Promise<string[]> {
  const [, entry] = io.self ?? selfInvocation();
  if (entry === undefined) return [];
  const plugin = join(dirname(dirname(entry)), 'plugins', 'dogsled');
  const manifest = (await jsonFile(join(plugin, '.codex-plugin', 'plugin.json'))) as
    | { hooks?: unknown }
    | undefined;
  if (typeof manifest?.hooks !== 'string') return [];
  const hooksPath = normalize(manifest.hooks);
  const hooks = (await jsonFile(join(plugin, hooksPath))) as { hooks?: Record<string, unknown> } | undefined;
  return codexHookKeys(pluginId, hooksPath, hooks?.hooks ?? {});
}

async function herdrFacts(io: InstallSectionIO): Promise<InstallFacts['herdr']> {
  if ('why' in io.herdr) return { running: false, why: io.herdr.why, plugin: null, error: null };
  try {
    const [found] = await io.herdr.port.listPlugins('dogsled');
    const plugin: PluginRecord | null = found
      ? { id: found.plugin_id, version: found.version ?? null, enabled: found.enabled !== false }
      : null;
    return { running: true, why: '', plugin, error: null };
  } catch (error) {
    return { running: true, why: '', plugin: null, error: messageOf(error) };
  }
}
