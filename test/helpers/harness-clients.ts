// The real Claude Code and Codex the plugin tests run: the versions test/harness-clients.json pins,
// installed by .ci/run into a cache directory ($DOGSLED_CI_CLIENTS, default
// ~/.cache/dogsled/harness-clients), never at the product's run time. A test that needs one skips
// with the reason printed when it is absent, unless DOGSLED_CI_REQUIRE_CLIENTS=1 (CI), where that
// is a failure. Each runs in a sandbox HOME, with telemetry and update checks off.

import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, cp, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CLI, ROOT } from './cli.js';

const PINS = JSON.parse(readFileSync(join(ROOT, 'test', 'harness-clients.json'), 'utf8')) as Record<
  'claude' | 'codex',
  { package: string; version: string }
>;

export function clientsDir(): string {
  const cache = process.env.XDG_CACHE_HOME || join(process.env.HOME ?? '/', '.cache');
  return process.env.DOGSLED_CI_CLIENTS || join(cache, 'dogsled', 'harness-clients');
}

/** The client's executable, or why it cannot be used here (throws instead where CI requires it). */
export function harnessClient(name: 'claude' | 'codex'): { bin: string } | { skip: string } {
  const pin = PINS[name];
  const dir = clientsDir();
  const bin = join(dir, 'node_modules', '.bin', name);
  let found: string | undefined;
  try {
    found = JSON.parse(readFileSync(join(dir, 'node_modules', pin.package, 'package.json'), 'utf8')).version;
  } catch {}
  if (found === pin.version && existsSync(bin)) return { bin };
  const why = `${pin.package}@${pin.version} is not installed in ${dir} (found ${found ?? 'none'}); .ci/run installs it`;
  if (process.env.DOGSLED_CI_REQUIRE_CLIENTS === '1') throw new Error(why);
  return { skip: why };
}

/** The client's environment: a sandbox HOME, `dogsled` (this build) and the clients on PATH. */
export async function clientEnv(base: NodeJS.ProcessEnv, root: string): Promise<NodeJS.ProcessEnv> {
  const bin = join(root, 'dogsled-bin');
  await mkdir(bin, { recursive: true });
  await writeFile(join(bin, 'dogsled'), `#!/bin/sh\nexec '${process.execPath}' '${CLI}' "$@"\n`);
  await chmod(join(bin, 'dogsled'), 0o755);
  return {
    ...base,
    PATH: `${bin}:${join(clientsDir(), 'node_modules', '.bin')}:${base.PATH}`,
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_ERROR_REPORTING: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  };
}

/**
 * A marketplace as the clients read this repository's: both marketplace files and plugins/dogsled,
 * copied from the working tree (so what is tested is what is here, committed or not).
 */
export async function marketplaceCopy(root: string): Promise<string> {
  const dir = join(root, 'marketplace');
  for (const path of ['.claude-plugin', '.agents', 'plugins/dogsled', 'README.md']) {
    await cp(join(ROOT, path), join(dir, path), { recursive: true });
  }
  return dir;
}

/** One conversation with `codex app-server` (JSON-RPC over stdio lines): ask, and read answers. */
export class CodexAppServer {
  private readonly child: ChildProcess;
  private buffer = '';
  private readonly waiting = new Map<number, (message: Record<string, unknown>) => void>();
  private next = 1;

  constructor(bin: string, env: NodeJS.ProcessEnv, cwd: string) {
    this.child = spawn(bin, ['app-server'], { env, cwd, stdio: ['pipe', 'pipe', 'ignore'] });
    this.child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      this.buffer += chunk;
      for (let end = this.buffer.indexOf('\n'); end >= 0; end = this.buffer.indexOf('\n')) {
        const line = this.buffer.slice(0, end);
        this.buffer = this.buffer.slice(end + 1);
        const message = JSON.parse(line) as Record<string, unknown>;
        if (typeof message.id === 'number') this.waiting.get(message.id)?.(message);
      }
    });
  }

  async start(): Promise<void> {
    await this.request('initialize', { clientInfo: { name: 'dogsled-tests', version: '0' } });
    this.child.stdin?.write(`${JSON.stringify({ method: 'initialized' })}\n`);
  }

  request(method: string, params: unknown): Promise<Record<string, unknown>> {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`codex app-server: no answer to ${method}`)), 30_000);
      this.waiting.set(id, (message) => {
        clearTimeout(timer);
        if (message.error) reject(new Error(`codex app-server: ${method}: ${JSON.stringify(message.error)}`));
        else resolve(message.result as Record<string, unknown>);
      });
      this.child.stdin?.write(`${JSON.stringify({ id, method, params })}\n`);
    });
  }

  stop(): void {
    this.child.kill('SIGKILL');
  }
}

export interface CodexHook {
  key: string;
  eventName: string;
  command: string;
  pluginId: string | null;
  currentHash: string;
  trustStatus: string;
}

/** Codex's own account of its hooks (`hooks/list`): every hook, its warnings and errors. */
export async function codexHooks(
  server: CodexAppServer,
  cwd: string,
): Promise<{ hooks: CodexHook[]; warnings: string[]; errors: unknown[] }> {
  const result = await server.request('hooks/list', { cwds: [cwd] });
  const [entry] = result.data as Array<{ hooks: CodexHook[]; warnings: string[]; errors: unknown[] }>;
  return entry ?? { hooks: [], warnings: [], errors: [] };
}

/** What `/hooks` does when the user trusts the hooks: their current hashes, written by Codex. */
export async function trustCodexHooks(server: CodexAppServer, hooks: CodexHook[]): Promise<void> {
  const value = Object.fromEntries(hooks.map((hook) => [hook.key, { trusted_hash: hook.currentHash }]));
  await server.request('config/batchWrite', {
    edits: [{ keyPath: 'hooks.state', mergeStrategy: 'upsert', value }],
  });
}
