// agent.* handlers and the integration reports (pane.report_agent, pane.release_agent). agent.start
// runs the refusal checks of §4.3 in Herdr's order and types nothing unless all pass; it returns
// at once with `launch_pending` and leaves readiness to the tracker.
import { executableFor, parseAgentKind, SHELLS, shellQuote } from '../lib/detect.mjs';
import { groupMembers, readStat } from '../lib/procfs.mjs';
import { AGENT_STATUSES, ApiError, Params, REPORT_STATES } from '../lib/protocol.mjs';
import { agentInfo } from '../lib/records.mjs';
import { readPane } from './panes.mjs';

const NAME = /^[a-z][a-z0-9_-]{0,31}$/;
const CONTROL = /[\u0000-\u001f\u007f]/;
const DEFAULT_UNTIL = ['idle', 'done', 'blocked'];

export function resolveAgent(model, target) {
  model.agents.refreshAll();
  const named = model.orderedPanes().filter((pane) => pane.agent.name === target);
  if (named.length > 1) {
    throw new ApiError(
      'agent_target_ambiguous',
      `agent target ${target} matches ${named.map((p) => p.id).join(', ')}`,
    );
  }
  if (named.length === 1) return named[0];
  const pane = model.panes.get(target);
  if (pane && model.agents.hosts(pane)) return pane;
  throw new ApiError('agent_not_found', `agent target ${target} not found`);
}

/** The shell is the whole foreground job: its pid is the foreground group and it is alone there. */
function shellIsAvailable(pane) {
  const pid = pane.terminal.process.pid;
  const stat = readStat(pid);
  if (!stat || !SHELLS.includes(stat.comm)) return false;
  if (stat.tpgid !== pid) return false;
  return groupMembers(pid).every((member) => member === pid);
}

/** Resolves when `done(view)` holds; rejects on timeout, cancel, or when the agent is gone. */
export function waitForAgent(model, pane, done, { timeoutMs, signal, gone = 'agent_not_running' }) {
  return new Promise((resolve, reject) => {
    let timer;
    const finish = (error) => {
      model.agents.off('change', onChange);
      signal?.removeEventListener('abort', onAbort);
      clearTimeout(timer);
      if (error) reject(error);
      else resolve();
    };
    const onChange = (changed) => {
      if (changed !== pane) return;
      if (pane.closed || !model.agents.hosts(pane)) {
        finish(new ApiError(gone, `agent in pane ${pane.id} is no longer running`));
      } else if (done(model.agents.view(pane))) finish();
    };
    const onAbort = () => finish(new ApiError('cancelled', 'client went away'));
    if (done(model.agents.view(pane))) return resolve();
    model.agents.on('change', onChange);
    signal?.addEventListener('abort', onAbort);
    if (timeoutMs !== undefined) {
      timer = setTimeout(() => finish(new ApiError('timeout', `timed out after ${timeoutMs} ms`)), timeoutMs);
    }
  });
}

export function agentsMethods(model) {
  const info = (pane) => agentInfo(model, pane);

  return {
    'agent.list': () => {
      model.agents.refreshAll();
      const panes = model.orderedPanes().filter((pane) => model.agents.hosts(pane));
      return { type: 'agent_list', agents: panes.map(info) };
    },

    'agent.get': (p) => ({ type: 'agent_info', agent: info(resolveAgent(model, p.str('target'))) }),

    'agent.focus': (p) => {
      const pane = resolveAgent(model, p.str('target'));
      model.focusPane(pane);
      return { type: 'agent_info', agent: info(pane) };
    },

    'agent.start': (p) => {
      const name = p.str('name');
      const kindLabel = p.str('kind');
      const paneId = p.str('pane_id');
      const args = p.strArray('args');
      const timeoutMs = p.optUint('timeout_ms');
      if (!NAME.test(name)) throw new ApiError('invalid_agent_name', `invalid agent name ${name}`);
      const kind = parseAgentKind(kindLabel);
      if (!kind) throw new ApiError('unsupported_agent_kind', `unsupported agent kind ${kindLabel}`);
      if (args.some((arg) => CONTROL.test(arg))) {
        throw new ApiError('invalid_agent_argument', 'agent arguments must not contain control characters');
      }
      model.agents.refreshAll();
      const holders = model.orderedPanes().filter((pane) => pane.agent.name === name);
      if (holders.length > 0) {
        throw new ApiError(
          'agent_name_taken',
          `agent name ${name} is already used by ${holders.map((h) => h.id).join(', ')}`,
        );
      }
      const pane = model.panes.get(paneId);
      if (!pane) throw new ApiError('agent_pane_not_found', `pane ${paneId} not found`);
      if (model.agents.hosts(pane))
        throw new ApiError('agent_pane_busy', `pane ${paneId} already hosts an agent`);
      if (pane.terminal.process.exited || pane.terminal.process.pid === undefined) {
        throw new ApiError('agent_pane_unavailable', `pane ${paneId} has no live terminal`);
      }
      if (pane.agent.forcedBusy || !shellIsAvailable(pane)) {
        throw new ApiError('agent_pane_busy', `pane ${paneId} is running another program`);
      }
      if (timeoutMs !== undefined && (timeoutMs <= 3000 || timeoutMs > 300_000)) {
        throw new ApiError(
          'invalid_agent_timeout',
          'timeout_ms must be greater than 3000 and at most 300000',
        );
      }
      const argv = [executableFor(kind), ...args];
      if (!pane.terminal.process.write(`${argv.map(shellQuote).join(' ')}\r`)) {
        throw new ApiError('agent_start_input_failed', `could not write to pane ${paneId}`);
      }
      model.agents.beginLaunch(pane, { name, kind, timeoutMs: timeoutMs ?? 30_000 });
      return { type: 'agent_started', agent: info(pane), argv };
    },

    'agent.read': (p) => readPane(resolveAgent(model, p.str('target')), p),

    'agent.wait': async (p, ctx) => {
      const pane = resolveAgent(model, p.str('target'));
      const until = p.enumArray('until', AGENT_STATUSES);
      const wanted = until.length > 0 ? until : DEFAULT_UNTIL;
      await waitForAgent(model, pane, (view) => wanted.includes(view.status), {
        timeoutMs: p.optUint('timeout_ms'),
        signal: ctx.signal,
      });
      return { type: 'agent_info', agent: info(pane) };
    },

    'agent.prompt': async (p, ctx) => {
      const target = p.str('target');
      const text = p.str('text');
      const waitRaw = p.object('wait');
      const wait = waitRaw && new Params('agent.prompt.wait', waitRaw);
      const until = wait ? wait.enumArray('until', AGENT_STATUSES) : [];
      const timeoutMs = wait?.optUint('timeout_ms');
      if (text === '') throw new ApiError('empty_agent_prompt', 'agent prompt must not be empty');
      const pane = resolveAgent(model, target);
      const notReady = () => new ApiError('agent_not_ready', `agent ${target} is not an active named agent`);
      if (!model.agents.kind(pane) || pane.agent.launch) throw notReady();
      if (model.agents.jobOf(pane) === undefined) {
        throw new ApiError('agent_not_ready', `agent ${target} is no longer the pane foreground process`);
      }
      const before = model.agents.view(pane);
      pane.terminal.process.write(text);
      setTimeout(() => pane.terminal.process.write('\r'), model.options.promptDelayMs).unref?.();
      if (wait) {
        if (before.status !== 'working') {
          await waitForAgent(model, pane, (view) => view.stateChangeSeq !== before.stateChangeSeq, {
            timeoutMs: model.options.stallMs,
            signal: ctx.signal,
          }).catch((error) => {
            if (error.code === 'timeout') {
              throw new ApiError('agent_prompt_stalled', `agent ${target} showed no lifecycle change`);
            }
            throw error;
          });
        }
        const wanted = until.length > 0 ? until : DEFAULT_UNTIL;
        await waitForAgent(model, pane, (view) => wanted.includes(view.status), {
          timeoutMs,
          signal: ctx.signal,
        });
      }
      return { type: 'agent_prompted', agent: info(pane) };
    },

    'pane.report_agent': (p) => {
      const pane = model.pane(p.str('pane_id'));
      const source = p.str('source');
      const label = p.str('agent').trim();
      const state = p.enumOf('state', REPORT_STATES);
      p.optStr('message');
      if (label === '') throw new ApiError('invalid_agent', 'agent label must not be empty');
      model.agents.report(pane, {
        source,
        agent: parseAgentKind(label) ?? label,
        state,
        seq: p.optUint('seq'),
        sessionId: p.optStr('agent_session_id'),
        sessionPath: p.optStr('agent_session_path'),
      });
      return { type: 'ok' };
    },

    'pane.release_agent': (p) => {
      const pane = model.pane(p.str('pane_id'));
      const source = p.str('source');
      if (p.str('agent').trim() === '') throw new ApiError('invalid_agent', 'agent label must not be empty');
      model.agents.release(pane, { source, seq: p.optUint('seq') });
      return { type: 'ok' };
    },
  };
}
