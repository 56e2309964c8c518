// Picks the terminal backend for this process: Herdr over its socket when the socket answers `ping`,
// else Herdr through the CLI when a herdr binary's server answers, else tmux when this process runs
// in tmux or `--terminal tmux` / `terminal = "tmux"` asks for it (choice.ts), else headless, with why.
// A missing socket costs one stat; a stale one, one failed connect. The CLI check spawns only when
// a binary exists. The ping is also the once-per-start protocol check, which warns and never fails.
// Each backend is imported where it is chosen: a headless caller (`run` without Herdr or tmux) runs
// neither Herdr's adapter, nor tmux's, nor the zod schemas of their records.

import { type TerminalChoice, tmuxChoice } from './choice.js';
import { HeadlessTerminal } from './headless/headless.js';
import { ROUTINE_TIMEOUT_MS, SocketTransport } from './herdr/herdr-channel.js';
import { connectFailure } from './herdr/herdr-socket.js';
import { exists, findHerdrBinary, socketCandidate } from './herdr/locate.js';
import type { TerminalPort } from './port.js';
import type { ServerInfo } from './port-records.js';
import { isTerminalError } from './terminal-errors.js';
import type { HookReport } from './tmux/tmux-records.js';

/** The socket protocol this adapter was written against (Herdr 0.8.0). */
export const HERDR_PROTOCOL = 20;
/** A server that accepts but does not answer `ping` this fast is treated as unusable. */
const PING_TIMEOUT_MS = 5_000;

export interface OpenTerminalOptions {
  env: NodeJS.ProcessEnv;
  home: string;
  /** The dogsled command, for refusals: `<commandName> needs Herdr or tmux (...)`. */
  commandName?: string;
  /** Routine per-call deadline (default 30 s); waits and agent starts take their own. */
  timeoutMs?: number;
  /** Receives whole warning lines; default: stderr. */
  warn?: (line: string) => void;
  /** What the harness hooks reported per terminal, for agents in tmux (default: none). */
  hookReports?: () => Promise<ReadonlyMap<string, HookReport>>;
  /**
   * config.toml's `terminal` as the caller's loadConfig judged it (its default `auto` when the key or
   * the file is absent), so the file is not read twice; without it tmuxChoice reads the key itself.
   */
  configTerminal?: TerminalChoice;
}

type Probe = { ok: true; server: ServerInfo | undefined } | { ok: false; why: string };

export async function openTerminal(options: OpenTerminalOptions): Promise<TerminalPort> {
  const { env } = options;
  const routineMs = options.timeoutMs ?? ROUTINE_TIMEOUT_MS;
  const warn = options.warn ?? ((line: string) => process.stderr.write(`${line}\n`));
  const candidate = socketCandidate(env, options.home);

  const probe = await pingSocket(candidate.path, candidate.from, Math.min(routineMs, PING_TIMEOUT_MS));
  if (probe.ok) {
    const server = probe.server;
    if (server && server.protocol !== HERDR_PROTOCOL) {
      warn(
        `dogsled: warning: herdr ${server.version} speaks socket protocol ${server.protocol}; dogsled expects ${HERDR_PROTOCOL} and continues`,
      );
    }
    const binary = await findHerdrBinary(env);
    const { HerdrTerminal } = await import('./herdr/herdr.js');
    return new HerdrTerminal({
      transport: new SocketTransport(candidate.path, routineMs),
      why: `socket ${candidate.path} answered${server ? ` (herdr ${server.version}, protocol ${server.protocol})` : ''}`,
      insideHerdr: env.HERDR_ENV === '1' && candidate.from === 'HERDR_SOCKET_PATH',
      ...(server ? { server } : {}),
      ...(binary ? { binary } : {}),
      env,
      routineMs,
    });
  }

  const binary = await findHerdrBinary(env);
  const tmux = await tmuxChoice(env, options.home, options.configTerminal);
  const TmuxTerminal = tmux ? (await import('./tmux/tmux.js')).TmuxTerminal : undefined;
  const fallback = (why: string): TerminalPort =>
    tmux && TmuxTerminal
      ? new TmuxTerminal({
          why: `${why}; ${tmux.why}`,
          socket: tmux.socket,
          env,
          routineMs,
          reports: options.hookReports ?? (() => hookReportsOf(env, options.home)),
        })
      : new HeadlessTerminal({
          why,
          env,
          routineMs,
          ...(options.commandName ? { commandName: options.commandName } : {}),
          ...(binary ? { binary } : {}),
        });
  if (!binary) return fallback(`${probe.why} and no herdr binary is on PATH`);

  const [{ CliTransport }, { HerdrTerminal }] = await Promise.all([
    import('./herdr/herdr-cli.js'),
    import('./herdr/herdr.js'),
  ]);
  const transport = new CliTransport(binary, env, [], routineMs);
  try {
    await transport.call('workspace.list', {});
  } catch (error) {
    if (!isTerminalError(error)) throw error;
    return fallback(`${probe.why}; ${binary} did not reach a server (${error.herdrCode ?? error.code})`);
  }
  return new HerdrTerminal({ transport, why: `${probe.why}; using ${binary}`, binary, env, routineMs });
}

async function pingSocket(path: string, from: string, timeoutMs: number): Promise<Probe> {
  if (!(await exists(path))) {
    return {
      ok: false,
      why: from === 'default' ? 'HERDR_SOCKET_PATH is not set' : connectFailure(path, 'ENOENT'),
    };
  }
  const transport = new SocketTransport(path, timeoutMs);
  try {
    const pong = await transport.call('ping', {});
    const { parseRecord, ServerInfoSchema } = await import('./port-records.js');
    return { ok: true, server: parseRecord(ServerInfoSchema, pong, 'ping') };
  } catch (error) {
    if (!isTerminalError(error)) throw error;
    if (error.code === 'unreachable') {
      return {
        ok: false,
        why: connectFailure(path, (error.cause as NodeJS.ErrnoException | undefined)?.code),
      };
    }
    if (error.code === 'timeout')
      return { ok: false, why: `socket ${path} did not answer ping in ${timeoutMs} ms` };
    if (error.code === 'protocol') return { ok: false, why: `socket ${path} did not speak Herdr's protocol` };
    // An error envelope still proves a Herdr server answered; only its ping is missing.
    return { ok: true, server: undefined };
  }
}

/** The hook reports in this process's state dir (agent-reports/), read on each listing. */
async function hookReportsOf(env: NodeJS.ProcessEnv, home: string): Promise<ReadonlyMap<string, HookReport>> {
  const [{ readAgentReports }, { stateDirFrom }] = await Promise.all([
    import('../state/records/agent-reports.js'),
    import('../state/paths.js'),
  ]);
  return readAgentReports(stateDirFrom(env, home));
}
