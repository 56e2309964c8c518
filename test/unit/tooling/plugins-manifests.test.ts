// Every manifest this repository ships for Claude Code and Codex, held to the fields each harness
// requires (and to what dogsled's own command line accepts), so `claude plugin marketplace add` and
// `codex plugin marketplace add` work from this repository and every registered hook is one the
// fast path runs.

import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { parseFast } from '../../../cli/fast-path.js';
import { buildProgram } from '../../../cli/program.js';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const PLUGIN = join(ROOT, 'plugins', 'dogsled');
const VERSION = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version as string;

function json(path: string): unknown {
  return JSON.parse(readFileSync(join(ROOT, path), 'utf8'));
}

const kebab = z.string().check(z.regex(/^[a-z][a-z0-9-]*$/));
const relative = z.string().check(z.regex(/^\.\/(?!.*\.\.)/));

/** A relative manifest path that stays inside `base` and exists there. */
function inside(base: string, path: string): string {
  const full = resolve(base, path);
  expect(full.startsWith(`${base}/`) || full === base).toBe(true);
  expect(existsSync(full)).toBe(true);
  return full;
}

const HookCommand = z.strictObject({
  type: z.literal('command'),
  command: z.string(),
  timeout: z.optional(z.number().check(z.positive(), z.maximum(5))),
});
const HooksFile = z.strictObject({
  description: z.optional(z.string()),
  hooks: z.partialRecord(
    z.enum(['SessionStart', 'UserPromptSubmit', 'Stop', 'Notification']),
    z.array(z.strictObject({ matcher: z.optional(z.string()), hooks: z.array(HookCommand) })),
  ),
});

/** Each registration: event -> the `dogsled hook` argv it runs. */
function registrations(path: string, harness: string): Array<[string, string[]]> {
  const file = HooksFile.parse(json(path));
  const found: Array<[string, string[]]> = [];
  for (const [event, groups] of Object.entries(file.hooks)) {
    for (const hook of (groups ?? []).flatMap((group) => group.hooks)) {
      expect(hook.command.endsWith(' || true')).toBe(true);
      const argv = hook.command.slice(0, -' || true'.length).split(' ');
      expect(argv.slice(0, 2)).toEqual(['dogsled', 'hook']);
      const parsed = parseFast(argv.slice(1));
      expect(parsed, hook.command).toBeDefined();
      expect(parsed?.flags).toMatchObject({ harness, event });
      found.push([event, argv.slice(2, 3)]);
    }
  }
  return found;
}

const McpServerEntry = z.strictObject({
  command: z.literal('dogsled'),
  args: z.array(z.string()),
  /** Codex: the variables it forwards from its own environment. */
  env_vars: z.optional(z.array(z.string().check(z.regex(/^[A-Z][A-Z0-9_]*$/)))),
});

/** The server entry of an MCP config file: `dogsled mcp`, a command the CLI has. */
function mcpServer(path: string): z.infer<typeof McpServerEntry> {
  const file = z.strictObject({ mcpServers: z.strictObject({ dogsled: McpServerEntry }) }).parse(json(path));
  const server = file.mcpServers.dogsled;
  expect(server.args).toEqual(['mcp']);
  expect(buildProgram(() => {}).commands.map((command) => command.name())).toContain('mcp');
  return server;
}

/** What the server needs to find its caller, Herdr and its state (service/terminal, state/paths). */
const FORWARDED = [
  'HERDR_ENV',
  'HERDR_PANE_ID',
  'HERDR_SOCKET_PATH',
  'HERDR_SESSION',
  'HERDR_BIN_PATH',
  'HERDR_CONFIG_PATH',
  'DOGSLED_STATE',
  'DOGSLED_CONFIG',
  'DOGSLED_BIN',
  'XDG_STATE_HOME',
  'XDG_CONFIG_HOME',
];

describe('the Claude Code plugin', () => {
  it('starts `dogsled mcp` from .mcp.json at the plugin root (Claude Code passes its environment on)', () => {
    expect(mcpServer('plugins/dogsled/.mcp.json')).toEqual({ command: 'dogsled', args: ['mcp'] });
  });

  it('has a plugin.json with the required name and the package version', () => {
    const manifest = z
      .looseObject({ name: kebab, version: z.string(), description: z.string() })
      .parse(json('plugins/dogsled/.claude-plugin/plugin.json'));
    expect(manifest).toMatchObject({ name: 'dogsled', version: VERSION });
  });

  it('registers SessionStart and UserPromptSubmit context, UserPromptSubmit and Stop inbox, and Notification state hooks', () => {
    expect(registrations('plugins/dogsled/hooks/hooks.json', 'claude')).toEqual([
      ['SessionStart', ['context']],
      ['UserPromptSubmit', ['context']],
      ['UserPromptSubmit', ['inbox']],
      ['Stop', ['inbox']],
      ['Notification', ['state']],
    ]);
  });

  it('is listed by the marketplace at the repository root', () => {
    const market = z
      .looseObject({
        name: kebab,
        owner: z.looseObject({ name: z.string() }),
        plugins: z.array(
          z.looseObject({ name: kebab, source: relative, description: z.optional(z.string()) }),
        ),
      })
      .parse(json('.claude-plugin/marketplace.json'));
    expect(market.name).toBe('dogsled');
    const [entry] = market.plugins;
    expect(entry?.name).toBe('dogsled');
    const dir = inside(ROOT, entry?.source ?? '');
    expect(dir).toBe(PLUGIN);
    expect(existsSync(join(dir, '.claude-plugin', 'plugin.json'))).toBe(true);
  });
});

describe('the Codex plugin', () => {
  it('has a plugin.json whose paths stay inside the plugin and exist', () => {
    const manifest = z
      .looseObject({
        name: kebab,
        version: z.string(),
        description: z.string(),
        skills: relative,
        hooks: relative,
        mcpServers: relative,
        interface: z.looseObject({ displayName: z.string(), shortDescription: z.string() }),
      })
      .parse(json('plugins/dogsled/.codex-plugin/plugin.json'));
    expect(manifest).toMatchObject({ name: 'dogsled', version: VERSION });
    expect(statSync(inside(PLUGIN, manifest.skills)).isDirectory()).toBe(true);
    expect(inside(PLUGIN, manifest.hooks)).toBe(join(PLUGIN, 'hooks', 'codex-hooks.json'));
    expect(inside(PLUGIN, manifest.mcpServers)).toBe(join(PLUGIN, 'codex-mcp.json'));
  });

  it('starts `dogsled mcp` forwarding the Herdr and DOGSLED_* variables (Codex passes only a few on)', () => {
    const forwarded = mcpServer('plugins/dogsled/codex-mcp.json').env_vars ?? [];
    expect(forwarded).toEqual(expect.arrayContaining(FORWARDED));
    expect(new Set(forwarded).size).toBe(forwarded.length);
  });

  it('registers the same hooks for Codex, each naming the codex harness', () => {
    expect(registrations('plugins/dogsled/hooks/codex-hooks.json', 'codex')).toEqual([
      ['SessionStart', ['context']],
      ['UserPromptSubmit', ['context']],
      ['UserPromptSubmit', ['inbox']],
      ['Stop', ['inbox']],
    ]);
  });

  it('is listed by the Codex marketplace with a local source and its policy', () => {
    const market = z
      .looseObject({
        name: kebab,
        plugins: z.array(
          z.looseObject({
            name: kebab,
            source: z.looseObject({ source: z.literal('local'), path: relative }),
            policy: z.looseObject({
              installation: z.enum(['AVAILABLE', 'INSTALLED_BY_DEFAULT', 'NOT_AVAILABLE']),
              authentication: z.enum(['ON_INSTALL', 'ON_USE']),
            }),
            category: z.string(),
          }),
        ),
      })
      .parse(json('.agents/plugins/marketplace.json'));
    const [entry] = market.plugins;
    expect([market.name, entry?.name]).toEqual(['dogsled', 'dogsled']);
    const dir = inside(ROOT, entry?.source.path ?? '');
    expect(existsSync(join(dir, '.codex-plugin', 'plugin.json'))).toBe(true);
  });
});

describe('the skill and the package', () => {
  it('ships one SKILL.md with its name and description, covering delegation, jobs, messages and the queue', () => {
    const text = readFileSync(join(PLUGIN, 'skills', 'dogsled', 'SKILL.md'), 'utf8');
    const front = /^---\nname: (.+)\ndescription: (.+)\n---\n/.exec(text);
    expect(front?.[1]).toBe('dogsled');
    expect(front?.[2]?.length).toBeGreaterThan(40);
    for (const heading of ['## Jobs', '## The queue', '## Delegation', '## Messages'])
      expect(text).toContain(heading);
  });

  it('publishes the plugins directory with the package', () => {
    expect(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).files).toContain('plugins');
  });
});
