// A sandbox with the fake Herdr for the message layer's tests: real panes (each its own terminal),
// the CLI run "from" a pane (HERDR_PANE_ID, HERDR_ENV=1, the fake's socket), and readers of the
// inbox files the commands write. Nothing of the module under test is replaced.

import { mkdir, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { claimMyInbox } from '../../service/actions/inbox-action.js';
import { sendAnywhere } from '../../service/actions/peer-actions.js';
import { callerPlaces } from '../../service/actions/verb-io.js';
import { type FakeHerdr, startFakeHerdr } from '../fakes/herdr/harness.js';
import { type CliResult, runCli, type Sandbox, sandbox } from './cli.js';

export interface PaneRef {
  pane: string;
  terminal: string;
}

export interface InboxBox {
  box: Sandbox;
  herdr: FakeHerdr;
  /** A new workspace's root pane (a real shell under the fake Herdr). */
  newPane(): Promise<PaneRef>;
  /** The CLI's environment as if run inside `pane`. */
  envOf(pane: PaneRef | string, extra?: NodeJS.ProcessEnv): NodeJS.ProcessEnv;
  /** `dogsled hook ...` from `pane`, with the harness's JSON on stdin. */
  hook(pane: PaneRef, args: string[], input?: object, extra?: NodeJS.ProcessEnv): Promise<CliResult>;
  /**
   * What `dogsled send TARGET --message TEXT` from `pane` does, run in this process: the same action
   * (target resolution through the fake Herdr, the reader check, the locked write), for a test whose
   * subject is what reads the inbox and not the command; a Node start fewer per record. The new
   * record's id; a warning or a refusal throws.
   */
  send(
    pane: PaneRef | string,
    target: string,
    text: string,
    options?: { kind?: string; extra?: NodeJS.ProcessEnv },
  ): Promise<string>;
  /**
   * Registers `pane` as `harness`'s reader as `dogsled inbox claim --harness H` from it does, run in
   * this process (the claim action), for a test about what reaches that inbox. Throws if the claim
   * took a record: it is for an inbox with nothing pending, as a reader's first run finds it.
   */
  register(pane: PaneRef, harness?: string): Promise<void>;
  /** `dogsled ...` from `pane`. */
  cli(
    pane: PaneRef | string,
    args: string[],
    options?: { input?: string; extra?: NodeJS.ProcessEnv },
  ): Promise<CliResult>;
  /** The inbox file of `pane`'s terminal, parsed, or undefined. */
  inbox(pane: PaneRef): Promise<InboxFile | undefined>;
  /** Every record of `pane`'s terminal, oldest first: live ones and those moved to its settled file. */
  records(pane: PaneRef): Promise<InboxFile[]>;
  inboxPath(pane: PaneRef): string;
  close(): Promise<void>;
}

// biome-ignore lint/suspicious/noExplicitAny: the file as JSON, asserted field by field
export type InboxFile = any;

export async function inboxBox(options: { env?: NodeJS.ProcessEnv } = {}): Promise<InboxBox> {
  const box = await sandbox();
  // As a running service leaves it: hooks add nothing on a host whose state dir does not exist.
  await mkdir(box.state, { recursive: true, mode: 0o700 });
  const herdr = await startFakeHerdr({
    dir: join(box.root, 'herdr'),
    env: { HOME: box.home, ...options.env },
  });
  const envOf = (pane: PaneRef | string, extra: NodeJS.ProcessEnv = {}) => ({
    ...box.env,
    HERDR_SOCKET_PATH: herdr.socketPath,
    HERDR_ENV: '1',
    HERDR_PANE_ID: typeof pane === 'string' ? pane : pane.pane,
    ...extra,
  });
  const inboxPath = (pane: PaneRef) => join(box.state, 'inbox', `${pane.terminal}.json`);
  return {
    box,
    herdr,
    newPane: async () => {
      const reply = await herdr.call('workspace.create', { cwd: box.home });
      if (reply.error) throw new Error(`workspace.create: ${JSON.stringify(reply.error)}`);
      return { pane: reply.result.root_pane.pane_id, terminal: reply.result.root_pane.terminal_id };
    },
    envOf,
    send: async (pane, target, text, sendOptions = {}) => {
      const { io, warnings } = processIO(envOf(pane, sendOptions.extra));
      const request = { target, host: null, kind: sendOptions.kind ?? 'message', text };
      const sent = await sendAnywhere(io, request, () => {
        throw new Error('send: this sandbox has no peers to look on');
      });
      if (warnings.length > 0) throw new Error(`send warned: ${warnings.join('; ')}`);
      return sent.record.id;
    },
    register: async (pane, harness = 'claude') => {
      const { io, warnings } = processIO(envOf(pane));
      const claimed = await claimMyInbox(io, harness);
      if (warnings.length > 0) throw new Error(`inbox claim warned: ${warnings.join('; ')}`);
      if (claimed.records.length > 0) throw new Error(`registering ${pane.pane} claimed a record`);
    },
    hook: (pane, args, input = {}, extra = {}) =>
      runCli(['hook', ...args], envOf(pane, extra), { input: JSON.stringify(input) }),
    cli: (pane, args, cliOptions = {}) =>
      runCli(
        args,
        envOf(pane, cliOptions.extra),
        cliOptions.input === undefined ? {} : { input: cliOptions.input },
      ),
    inbox: async (pane) => {
      try {
        return JSON.parse(await readFile(inboxPath(pane), 'utf8'));
      } catch {
        return undefined;
      }
    },
    records: async (pane) => {
      const read = async (path: string) => JSON.parse(await readFile(path, 'utf8').catch(() => '{}'));
      const settled = await read(join(box.state, 'inbox', `${pane.terminal}.d`, 'settled.json'));
      const byId = new Map<string, InboxFile>();
      for (const record of [...(settled.records ?? []), ...((await read(inboxPath(pane))).records ?? [])])
        byId.set(record.id, record);
      return [...byId.values()].sort((a, b) => a.created_ms - b.created_ms);
    },
    inboxPath,
    close: async () => {
      await herdr.stop();
      await box.cleanup();
    },
  };
}

/** The IO a command run with `env` hands the service (cli/context.ts), its warnings kept. */
function processIO(env: NodeJS.ProcessEnv) {
  const home = env.HOME as string;
  const { paths, now } = callerPlaces(env, home);
  const warnings: string[] = [];
  return { io: { env, home, paths, now, warn: (line: string) => void warnings.push(line) }, warnings };
}

/** A sandbox with two panes: the usual sender (`lead`) and receiver (`child`). */
export async function inboxPair(options: { env?: NodeJS.ProcessEnv } = {}): Promise<{
  t: InboxBox;
  lead: PaneRef;
  child: PaneRef;
}> {
  const t = await inboxBox(options);
  return { t, lead: await t.newPane(), child: await t.newPane() };
}

/** Registers `pane` as a Claude Code reader the way its first hook run does (prints nothing). */
export async function registerClaude(t: InboxBox, pane: PaneRef): Promise<void> {
  const result = await t.hook(pane, ['inbox', '--harness', 'claude', '--event', 'UserPromptSubmit'], {
    hook_event_name: 'UserPromptSubmit',
    prompt: 'hello',
  });
  if (result.code !== 0 || result.stdout !== '')
    throw new Error(`registration printed ${JSON.stringify(result)}`);
}

export async function inboxFiles(stateDir: string): Promise<string[]> {
  return (await readdir(join(stateDir, 'inbox')).catch(() => [] as string[])).sort();
}

/** The JSON a hook printed, or undefined for no output. */
// biome-ignore lint/suspicious/noExplicitAny: the harness-facing JSON, asserted field by field
export function hookJson(result: CliResult): any {
  return result.stdout === '' ? undefined : JSON.parse(result.stdout);
}
