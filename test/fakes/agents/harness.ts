// Test-side helpers for the fake `claude`, `codex` and `pi` executables in ./bin: the PATH entry,
// task files with a script in them, the hook files each harness reads, and readers for what a fake
// left behind (launch records, event logs, transcripts). See ./README.md for the script format.

import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { waitFor } from '../../helpers/wait.js';

export const FAKE_AGENTS_BIN = join(import.meta.dirname, 'bin');

export type FakeAgentKind = 'claude' | 'codex' | 'pi';

export type FakeStep =
  | { reply: string }
  | { work_ms: number }
  | { sleep_ms: number }
  | { hang: true }
  | { ask: string }
  | { crash: number }
  | { run: string }
  | { stop: true };

export interface FakeScript {
  steps: FakeStep[];
  /** Steps run when a Stop hook (Pi: agent_before_settle) continues the turn; default one reply. */
  on_stop_block?: FakeStep[];
}

/** The fenced block a fake agent finds in a task file or prompt. */
export function scriptBlock(script: FakeScript | FakeStep[]): string {
  const value = Array.isArray(script) ? { steps: script } : script;
  return `\`\`\`fake-agent\n${JSON.stringify(value)}\n\`\`\`\n`;
}

/** Writes a task file: prose for the reader, then the script. Returns its path. */
export async function writeTaskFile(
  path: string,
  options: { text?: string; script?: FakeScript | FakeStep[] } = {},
): Promise<string> {
  await mkdir(dirname(path), { recursive: true });
  const body = `${options.text ?? 'A task for a fake agent.'}\n\n${options.script ? scriptBlock(options.script) : ''}`;
  await writeFile(path, body);
  return path;
}

/** A JSON script file for $FAKE_AGENT_SCRIPT, used when the launch prompt carries no script. */
export async function writeScriptFile(path: string, script: FakeScript | FakeStep[]): Promise<string> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, JSON.stringify(Array.isArray(script) ? { steps: script } : script));
  return path;
}

/** `base` with the fakes first on PATH, a private HOME and log directory. */
export function fakeAgentEnv(
  base: NodeJS.ProcessEnv,
  options: { home: string; logDir: string; script?: string },
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...base,
    PATH: `${FAKE_AGENTS_BIN}:${base.PATH ?? ''}`,
    HOME: options.home,
    FAKE_AGENT_LOG_DIR: options.logDir,
  };
  if (options.script) env.FAKE_AGENT_SCRIPT = options.script;
  else delete env.FAKE_AGENT_SCRIPT;
  return env;
}

export interface LaunchRecord {
  kind: FakeAgentKind;
  argv: string[];
  cwd: string;
  pid: number;
  started_ms: number;
  session_id: string;
  session_source: 'startup' | 'resume';
  /** Null only for `pi --no-session`. */
  transcript: string | null;
  model: string;
  task_files: string[];
  system_prompts: { arg: string; text: string; file: boolean }[];
  herdr_pane_id: string | null;
  /** Path of this launch's event log. */
  events: string;
  /** The parsed launch (flags, values, unknown flags, positionals). */
  launch: Record<string, unknown>;
}

/** Every launch recorded in `logDir`, oldest first. */
export async function readLaunches(logDir: string): Promise<LaunchRecord[]> {
  const names = await readdir(logDir).catch(() => [] as string[]);
  const records: LaunchRecord[] = [];
  for (const name of names.filter((n) => /^\d+-(claude|codex|pi)-\d+\.json$/.test(n))) {
    records.push(JSON.parse(await readFile(join(logDir, name), 'utf8')) as LaunchRecord);
  }
  return records.sort((a, b) => a.started_ms - b.started_ms || a.pid - b.pid);
}

export function waitForLaunch(
  logDir: string,
  match: (record: LaunchRecord) => boolean = () => true,
  timeoutMs?: number,
): Promise<LaunchRecord> {
  return waitFor('a fake agent launch', async () => (await readLaunches(logDir)).find(match), { timeoutMs });
}

export interface FakeAgentEvent {
  at_ms: number;
  /** prompt, hook, state, step, run, answer, exit */
  event: string;
  [field: string]: unknown;
}

export async function readEvents(launch: LaunchRecord): Promise<FakeAgentEvent[]> {
  const text = await readFile(launch.events, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as FakeAgentEvent);
}

export function waitForEvent(
  launch: LaunchRecord,
  match: (event: FakeAgentEvent) => boolean,
  timeoutMs?: number,
): Promise<FakeAgentEvent> {
  return waitFor('a fake agent event', async () => (await readEvents(launch)).find(match), { timeoutMs });
}

/** The states a launch reported (or would have reported) to Herdr, in order. */
export async function reportedStates(launch: LaunchRecord): Promise<string[]> {
  return (await readEvents(launch)).filter((e) => e.event === 'state').map((e) => String(e.state));
}

export function claudeProjectSlug(cwd: string): string {
  return cwd.replace(/[^a-zA-Z0-9]/g, '-');
}

export function piSessionSlug(cwd: string): string {
  return `--${cwd.replace(/^[/\\]/, '').replace(/[/\\:]/g, '-')}--`;
}

export function claudeTranscriptPath(home: string, cwd: string, sessionId: string): string {
  return join(home, '.claude', 'projects', claudeProjectSlug(cwd), `${sessionId}.jsonl`);
}

/** Every transcript of `kind` under `home`'s standard session directories. */
export async function findTranscripts(home: string, kind: FakeAgentKind): Promise<string[]> {
  const root =
    kind === 'claude'
      ? join(home, '.claude', 'projects')
      : kind === 'codex'
        ? join(home, '.codex', 'sessions')
        : join(home, '.pi', 'agent', 'sessions');
  const entries = await readdir(root, { recursive: true }).catch(() => [] as string[]);
  return entries
    .filter((entry) => entry.endsWith('.jsonl'))
    .map((entry) => join(root, entry))
    .sort();
}

export async function readTranscript(path: string): Promise<Record<string, unknown>[]> {
  const text = await readFile(path, 'utf8');
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

export type HookEvent = 'SessionStart' | 'UserPromptSubmit' | 'Stop';
export type HookTable = Partial<
  Record<HookEvent, { matcher?: string; hooks: { type: 'command'; command: string; timeout?: number }[] }[]>
>;

/** {"SessionStart": "cmd"} -> the nested hooks shape Claude Code and Codex read. */
export function commandHooks(commands: Partial<Record<HookEvent, string | string[]>>): HookTable {
  const table: HookTable = {};
  for (const [event, value] of Object.entries(commands) as [HookEvent, string | string[]][]) {
    const list = Array.isArray(value) ? value : [value];
    table[event] = [{ hooks: list.map((command) => ({ type: 'command' as const, command })) }];
  }
  return table;
}

/** ~/.claude/settings.json with these hooks (other settings kept). */
export async function writeClaudeHooks(home: string, hooks: HookTable): Promise<string> {
  const path = join(home, '.claude', 'settings.json');
  const current = JSON.parse(await readFile(path, 'utf8').catch(() => '{}')) as Record<string, unknown>;
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, JSON.stringify({ ...current, hooks }, null, 2));
  return path;
}

/** ~/.codex/hooks.json. */
export async function writeCodexHooks(home: string, hooks: HookTable): Promise<string> {
  const path = join(home, '.codex', 'hooks.json');
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, JSON.stringify({ hooks }, null, 2));
  return path;
}

export type PiFakeHookEvent = 'session_start' | 'before_agent_start' | 'agent_before_settle' | 'agent_end';

/** ~/.pi/agent/fake-hooks.json: the fake pi's stand-in for an extension (not a real Pi file). */
export async function writePiFakeHooks(
  home: string,
  hooks: Partial<Record<PiFakeHookEvent, string[]>>,
): Promise<string> {
  const path = join(home, '.pi', 'agent', 'fake-hooks.json');
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, JSON.stringify(hooks, null, 2));
  return path;
}

export interface RunningFakeAgent {
  child: ChildProcessWithoutNullStreams;
  output: () => string;
  /** Types a line into the agent's input, as a user at its prompt would. */
  type: (line: string) => void;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stop: () => Promise<void>;
}

/** Starts a fake agent directly (no terminal): stdin is a pipe the test types into. */
export function startFakeAgent(
  kind: FakeAgentKind,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): RunningFakeAgent {
  const child = spawn(join(FAKE_AGENTS_BIN, kind), args, {
    cwd: options.cwd,
    env: options.env,
    stdio: 'pipe',
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    output += d;
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    output += d;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('close', (code, signal) => resolve({ code, signal }));
  });
  return {
    child,
    output: () => output,
    type: (line) => child.stdin.write(`${line}\n`),
    exited,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
