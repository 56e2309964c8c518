// plugins/dogsled as the real clients take it (the versions .ci/run installs; see
// test/helpers/harness-clients.ts): Claude Code validates it strictly, installs it from the
// marketplace file into a sandbox HOME, registers its four hook events, its skill and `dogsled mcp`,
// and connects to that server; Codex adds the marketplace and the plugin, lists the MCP server with
// the variables it forwards, and holds the four hooks untrusted until the user reviews them in
// /hooks. A manifest either client rejects fails here.

import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DoctorReportSchema } from '../../../service/cleanup/doctor-report.js';
import { CLI, type Sandbox, sandbox } from '../../helpers/cli.js';
import {
  CodexAppServer,
  clientEnv,
  codexHooks,
  harnessClient,
  marketplaceCopy,
  trustCodexHooks,
} from '../../helpers/harness-clients.js';

const run = promisify(execFile);
const VERSION = JSON.parse(
  await readFile(join(import.meta.dirname, '..', '..', '..', 'package.json'), 'utf8'),
).version;

/** The hooks the README lists for each client: event and the `dogsled hook` command. */
const CLAUDE_HOOKS = [
  ['SessionStart', 'dogsled hook context --harness claude --event SessionStart || true'],
  ['UserPromptSubmit', 'dogsled hook context --harness claude --event UserPromptSubmit || true'],
  ['UserPromptSubmit', 'dogsled hook inbox --harness claude --event UserPromptSubmit || true'],
  ['Stop', 'dogsled hook inbox --harness claude --event Stop || true'],
  ['Notification', 'dogsled hook state --harness claude --event Notification || true'],
];
const CODEX_HOOKS = [
  ['sessionStart', 'dogsled hook context --harness codex --event SessionStart || true'],
  ['userPromptSubmit', 'dogsled hook context --harness codex --event UserPromptSubmit || true'],
  ['userPromptSubmit', 'dogsled hook inbox --harness codex --event UserPromptSubmit || true'],
  ['stop', 'dogsled hook inbox --harness codex --event Stop || true'],
];

/** doctor's install findings for `check`, in the clients' sandbox. */
async function doctorSays(env: NodeJS.ProcessEnv, cwd: string, check: string) {
  const done = await runIn(process.execPath, [CLI, 'doctor', '--json'], env, cwd);
  expect(done.code, done.stderr).toBe(0);
  const report = DoctorReportSchema.parse(JSON.parse(done.stdout));
  return report.install?.find((finding) => finding.check === check);
}

function client(name: 'claude' | 'codex'): string | undefined {
  const found = harnessClient(name);
  if ('bin' in found) return found.bin;
  console.log(`skipped: ${found.skip}`);
  return undefined;
}

const claude = client('claude');
const codex = client('codex');

async function runIn(bin: string, args: string[], env: NodeJS.ProcessEnv, cwd: string) {
  return run(bin, args, { env, cwd, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 }).then(
    (done) => ({ code: 0, stdout: done.stdout, stderr: done.stderr }),
    (failed) => ({
      code: failed.code as number,
      stdout: String(failed.stdout),
      stderr: String(failed.stderr),
    }),
  );
}

// Each test runs the real client several times (a large Node program, seconds a call on a loaded
// 2-core machine): the project's 20 s for a whole test timed out a first try in CI, whose retry then
// found the plugin the first had installed. runIn gives each call 120 s; a test gets 180 s in all.
const CLIENT_TEST_MS = 180_000;

describe.skipIf(!claude)('Claude Code', { timeout: CLIENT_TEST_MS }, () => {
  let box: Sandbox;
  let env: NodeJS.ProcessEnv;
  let market: string;
  const cli = (args: string[]) => runIn(claude!, args, env, box.home);

  beforeAll(async () => {
    box = await sandbox();
    env = await clientEnv(box.env, box.root);
    market = await marketplaceCopy(box.root);
  });
  afterAll(() => box?.cleanup());

  it('validates the plugin strictly: no error, no warning, the hooks, skill and MCP server the README lists', async () => {
    const checked = await cli([
      'plugin',
      'validate',
      '--strict',
      '--json',
      join(market, 'plugins', 'dogsled'),
    ]);
    expect(checked.code, checked.stdout + checked.stderr).toBe(0);
    const report = JSON.parse(checked.stdout);
    expect(report).toMatchObject({ success: true, manifest: { errors: [], warnings: [] } });
    expect(
      report.provides.hooks.map((h: { event: string; command: string }) => [h.event, h.command]),
    ).toEqual(CLAUDE_HOOKS);
    expect(report.provides.skills).toEqual(['dogsled:dogsled']);
    expect(report.provides.mcpServers).toEqual([
      { name: 'dogsled', type: 'stdio', target: 'dogsled', args: ['mcp'] },
    ]);
    const marketplace = await cli(['plugin', 'validate', '--strict', market]);
    expect(marketplace.code, marketplace.stdout).toBe(0);
  });

  it('refuses a manifest it would not load, so passing means something', async () => {
    const broken = await marketplaceCopy(join(box.root, 'broken'));
    const manifest = join(broken, 'plugins', 'dogsled', '.claude-plugin', 'plugin.json');
    await writeFile(
      manifest,
      JSON.stringify({ ...JSON.parse(await readFile(manifest, 'utf8')), name: 'dog sled' }),
    );
    const checked = await cli(['plugin', 'validate', '--strict', join(broken, 'plugins', 'dogsled')]);
    expect(checked.code).toBe(1);
    expect(checked.stdout).toMatch(/name: Plugin name cannot contain spaces/);
  });

  it('installs from the marketplace file and registers the hooks, the skill and `dogsled mcp`, which it connects to', async () => {
    expect(await doctorSays(env, box.home, 'claude')).toEqual({
      check: 'claude',
      state: 'fix',
      detail: 'the dogsled plugin is not installed in Claude Code',
      fix: `claude plugin marketplace add oisin-ee/dogsled#v${VERSION} && claude plugin install dogsled@dogsled`,
    });
    expect((await cli(['plugin', 'marketplace', 'add', market])).code).toBe(0);
    const installed = await cli(['plugin', 'install', 'dogsled@dogsled']);
    expect(installed.code, installed.stdout + installed.stderr).toBe(0);
    const list = JSON.parse((await cli(['plugin', 'list', '--json'])).stdout) as Array<
      Record<string, unknown>
    >;
    expect(list.find((p) => p.id === 'dogsled@dogsled')).toMatchObject({
      version: VERSION,
      enabled: true,
      mcpServers: { dogsled: { command: 'dogsled', args: ['mcp'] } },
    });
    const details = (await cli(['plugin', 'details', 'dogsled@dogsled'])).stdout;
    expect(details).toMatch(/Hooks \(4\) +SessionStart, UserPromptSubmit, Stop, Notification/);
    expect(details).toMatch(/Skills \(1\) +dogsled/);
    expect(details).toMatch(/MCP servers \(1\) +dogsled/);
    // Claude Code starts the plugin's server (`dogsled mcp`, this build, on PATH) and talks MCP to it.
    const servers = await cli(['mcp', 'list']);
    expect(servers.stdout).toMatch(/plugin:dogsled:dogsled: dogsled mcp - ✔ Connected/);

    // doctor reads Claude Code's own records of it: installed, then disabled.
    expect(await doctorSays(env, box.home, 'claude')).toMatchObject({
      state: 'ok',
      detail: `dogsled@dogsled ${VERSION} installed in Claude Code`,
    });
    expect((await cli(['plugin', 'disable', 'dogsled@dogsled'])).code).toBe(0);
    expect(await doctorSays(env, box.home, 'claude')).toMatchObject({
      state: 'fix',
      fix: 'claude plugin enable dogsled@dogsled',
    });
  });
});

describe.skipIf(!codex)('Codex', { timeout: CLIENT_TEST_MS }, () => {
  let box: Sandbox;
  let env: NodeJS.ProcessEnv;
  let market: string;
  const cli = (args: string[]) => runIn(codex!, args, env, box.home);

  beforeAll(async () => {
    box = await sandbox();
    env = await clientEnv(box.env, box.root);
    market = await marketplaceCopy(box.root);
  });
  afterAll(() => box?.cleanup());

  it('adds the marketplace and the plugin, and lists `dogsled mcp` with the variables it forwards', async () => {
    expect(await doctorSays(env, box.home, 'codex')).toMatchObject({
      state: 'fix',
      fix: `codex plugin marketplace add oisin-ee/dogsled --ref v${VERSION} && codex plugin add dogsled@dogsled`,
    });
    const added = await cli(['plugin', 'marketplace', 'add', market]);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toContain('Added marketplace `dogsled`');
    const plugin = await cli(['plugin', 'add', 'dogsled@dogsled']);
    expect(plugin.code, plugin.stderr).toBe(0);
    expect((await cli(['plugin', 'list'])).stdout).toMatch(
      new RegExp(`dogsled@dogsled +installed, enabled +${VERSION.replaceAll('.', '\\.')}`),
    );
    const servers = JSON.parse((await cli(['mcp', 'list', '--json'])).stdout) as Array<{
      name: string;
      transport: { env_vars?: string[] };
    }>;
    const server = servers.find((s) => s.name === 'dogsled');
    expect(server).toMatchObject({
      enabled: true,
      transport: { type: 'stdio', command: 'dogsled', args: ['mcp'] },
    });
    expect(server?.transport.env_vars).toEqual(
      expect.arrayContaining(['HERDR_PANE_ID', 'HERDR_SOCKET_PATH', 'DOGSLED_STATE', 'DOGSLED_CONFIG']),
    );
  });

  it('holds the four hooks untrusted until reviewed in /hooks, and trusted after', async () => {
    const server = new CodexAppServer(codex!, env, box.home);
    try {
      await server.start();
      const listed = await codexHooks(server, box.home);
      expect(listed.warnings).toEqual([]);
      expect(listed.errors).toEqual([]);
      const ours = listed.hooks.filter((hook) => hook.pluginId === 'dogsled@dogsled');
      expect(ours.map((hook) => [hook.eventName, hook.command])).toEqual(CODEX_HOOKS);
      expect(new Set(ours.map((hook) => hook.trustStatus))).toEqual(new Set(['untrusted']));
      // doctor reads the same from Codex's config: the plugin is there, its hooks are not trusted.
      expect(await doctorSays(env, box.home, 'codex')).toMatchObject({ state: 'ok' });
      expect(await doctorSays(env, box.home, 'codex-hooks')).toEqual({
        check: 'codex-hooks',
        state: 'fix',
        detail: '4 of 4 dogsled hooks not trusted: Codex skips them without a word',
        fix: 'codex, then /hooks: review and trust the dogsled hooks',
      });
      await trustCodexHooks(server, ours);
      const after = await codexHooks(server, box.home);
      expect(
        after.hooks.filter((hook) => hook.pluginId === 'dogsled@dogsled').map((h) => h.trustStatus),
      ).toEqual(['trusted', 'trusted', 'trusted', 'trusted']);
    } finally {
      server.stop();
    }
  });

  it('reports a hooks file it cannot load, so passing means something', async () => {
    const broken = await marketplaceCopy(join(box.root, 'broken'));
    const hooks = join(broken, 'plugins', 'dogsled', 'hooks', 'codex-hooks.json');
    await writeFile(hooks, JSON.stringify({ ...JSON.parse(await readFile(hooks, 'utf8')), $schema: 'x' }));
    const home = join(box.root, 'broken-home');
    const brokenEnv = { ...env, HOME: home };
    await runIn(codex!, ['plugin', 'marketplace', 'add', broken], brokenEnv, box.root);
    await runIn(codex!, ['plugin', 'add', 'dogsled@dogsled'], brokenEnv, box.root);
    const server = new CodexAppServer(codex!, brokenEnv, box.root);
    try {
      await server.start();
      const listed = await codexHooks(server, box.root);
      expect(listed.hooks).toEqual([]);
      expect(listed.warnings).toEqual([expect.stringMatching(/unknown field `\$schema`/)]);
    } finally {
      server.stop();
    }
  });
});
