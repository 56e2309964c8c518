// Agents in tmux. tmux detects nothing, so an agent is a pane dogsled launched one in: the pane
// carries @dogsled-name and @dogsled-agent, and its state is what the harness hooks reported (see
// tmux-records.ts). A start types nothing: the pane's idle shell is replaced by the agent's own
// argv (`respawn-pane -k … -- argv`), in the shell's directory with the shell's environment, after
// the same refusals Herdr makes, in Herdr's order (CONTRACT §4.3).

import { setTimeout as sleep } from 'node:timers/promises';
import type { AgentStarted, StartAgentOptions, WaitAgentOptions } from '../port.js';
import type { Agent, AgentStatus } from '../port-records.js';
import { TerminalError } from '../terminal-errors.js';
import type { TmuxTerminal } from './tmux.js';
import { commandArgs, placeArgs, SEP } from './tmux-argv.js';
import { shellAvailable, startEnvironment } from './tmux-proc.js';
import { OPT } from './tmux-records.js';

const NAME = /^[a-z][a-z0-9_-]{0,31}$/;
const CONTROL = /[\u0000-\u001f\u007f]/;
/** The harnesses dogsled launches, by the labels Herdr accepts for them. */
const KINDS: Record<string, string> = { claude: 'claude', 'claude-code': 'claude', codex: 'codex', pi: 'pi' };
const DEFAULT_UNTIL: AgentStatus[] = ['idle', 'done', 'blocked'];
const POLL_MS = 200;

export class TmuxAgents {
  constructor(private readonly port: TmuxTerminal) {}

  async list(): Promise<Agent[]> {
    return (await this.port.listAll()).agents;
  }

  /** By name, else by pane id, else by terminal id. */
  async get(target: string): Promise<Agent> {
    const agents = await this.list();
    const named = agents.filter((agent) => agent.name === target);
    if (named.length > 1) {
      throw new TerminalError(
        'agent_target_ambiguous',
        `agent target ${target} matches ${named.map((a) => a.pane_id).join(', ')}`,
        { method: 'agent.get' },
      );
    }
    const found = named[0] ?? agents.find((a) => a.pane_id === target || a.terminal_id === target);
    if (!found)
      throw new TerminalError('agent_not_found', `agent target ${target} not found`, { method: 'agent.get' });
    return found;
  }

  async start(options: StartAgentOptions): Promise<AgentStarted> {
    const method = 'agent.start';
    const refuse = (code: ConstructorParameters<typeof TerminalError>[0], why: string) =>
      new TerminalError(code, `tmux agent start ${options.name}: ${why}`, { method });
    if (!NAME.test(options.name)) throw refuse('invalid_agent_name', `invalid agent name ${options.name}`);
    const kind = KINDS[options.kind.trim().toLowerCase()];
    if (!kind) throw refuse('unsupported_agent_kind', `unsupported agent kind ${options.kind}`);
    const args = options.args ?? [];
    if (args.some((arg) => CONTROL.test(arg)))
      throw refuse('invalid_agent_argument', 'agent arguments must not contain control characters');
    const rows = await this.port.rows();
    const holders = rows.filter((r) => r[OPT.name] === options.name && r.pane_dead !== '1');
    if (holders.length > 0) {
      throw refuse(
        'agent_name_taken',
        `agent name ${options.name} is already used by ${holders.map((h) => h.pane_id).join(', ')}`,
      );
    }
    const row = rows.find((r) => r.pane_id === options.paneId);
    if (!row) throw refuse('agent_pane_not_found', `pane ${options.paneId} not found`);
    if (row[OPT.agent] !== '')
      throw refuse('agent_pane_busy', `pane ${options.paneId} already hosts an agent`);
    if (row.pane_dead === '1')
      throw refuse('agent_pane_unavailable', `pane ${options.paneId} has no live terminal`);
    if (!(await shellAvailable(Number(row.pane_pid), row.pane_current_command))) {
      throw refuse('agent_pane_busy', `pane ${options.paneId} is running another program`);
    }
    if (options.timeoutMs !== undefined && (options.timeoutMs <= 3000 || options.timeoutMs > 300_000)) {
      throw refuse('invalid_agent_timeout', 'timeout_ms must be greater than 3000 and at most 300000');
    }
    const argv = [kind, ...args];
    const env = (await startEnvironment(Number(row.pane_pid))) ?? {};
    // The name first, so no read sees the agent unnamed; the shell is replaced, not typed into.
    await this.port.client.run(
      [
        'set-option',
        '-p',
        '-t',
        row.pane_id,
        OPT.name,
        options.name,
        SEP,
        'set-option',
        '-p',
        '-t',
        row.pane_id,
        OPT.agent,
        kind,
        SEP,
        'respawn-pane',
        '-k',
        '-t',
        row.pane_id,
        ...placeArgs(row.pane_current_path || undefined, env),
        ...commandArgs(argv),
      ],
      method,
    );
    const agent = await this.get(options.name).catch(() => undefined);
    if (!agent) throw refuse('agent_start_failed', 'the agent exited before it was ready');
    return { agent, argv };
  }

  /** Polls until the state matches; an agent that goes away is agent_not_running. */
  async wait(target: string, options: WaitAgentOptions = {}): Promise<Agent> {
    const until = options.until ?? DEFAULT_UNTIL;
    const deadline = options.timeoutMs === undefined ? Infinity : Date.now() + options.timeoutMs;
    const first = await this.get(target);
    for (;;) {
      const agent = await this.get(first.terminal_id).catch((error: unknown) => {
        if (error instanceof TerminalError && error.code === 'agent_not_found') {
          throw new TerminalError('agent_not_running', `agent ${target} is no longer running`, {
            method: 'agent.wait',
          });
        }
        throw error;
      });
      if (until.includes(agent.agent_status)) return agent;
      if (Date.now() >= deadline) {
        throw new TerminalError('timeout', `agent ${target}: timed out after ${options.timeoutMs} ms`, {
          method: 'agent.wait',
        });
      }
      await sleep(POLL_MS, undefined, options.signal ? { signal: options.signal } : {});
    }
  }
}
