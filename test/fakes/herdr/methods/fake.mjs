// Test-only control methods under `_fake.` (never used by production code): drive agent states,
// force a busy pane, kill a pane's process, change config, inject failures, inspect the request
// log, notifications and events, and write the saved-machines file the shim reads.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { AGENT_STATUSES, ApiError } from '../lib/protocol.mjs';
import { resolveAgent } from './agents.mjs';

export function machinesPath(configDir) {
  return join(configDir, 'machines.json');
}

export function fakeMethods(model, { calls, failures, notifications, shutdown }) {
  return {
    '_fake.agent.set_status': (p) => {
      const status = p.enumOf('status', AGENT_STATUSES);
      const pane = resolveAgent(model, p.str('target'));
      if (!model.agents.kind(pane))
        throw new ApiError('agent_not_found', `no agent detected in ${pane.id} yet`);
      model.agents.forceStatus(pane, status);
      return { type: 'ok' };
    },

    '_fake.pane.set_busy': (p) => {
      const pane = model.pane(p.str('pane_id'));
      pane.agent.forcedBusy = p.bool('busy', true);
      return { type: 'ok' };
    },

    '_fake.pane.exit': async (p) => {
      const pane = model.pane(p.str('pane_id'));
      // kill() resolves once the host has exited, after the model has removed the pane.
      await pane.terminal.process.kill();
      return { type: 'ok' };
    },

    '_fake.pane.output': (p) => {
      const pane = model.pane(p.str('pane_id'));
      return { type: 'fake_pane_output', text: pane.terminal.process.screen.rawText() };
    },

    '_fake.config.set': (p) => {
      const delivery = p.optEnum('toast_delivery', ['off', 'herdr', 'terminal', 'system']);
      if (delivery !== undefined) model.config.toast_delivery = delivery;
      if (p.has('confirm_close')) model.config.confirm_close = p.bool('confirm_close');
      const detected = p.optEnum('detected_status', ['idle', 'working', 'blocked', 'unknown']);
      if (detected !== undefined) model.config.detected_status = detected;
      if (p.has('settle_ms')) model.options.settleMs = p.optUint('settle_ms');
      return { type: 'fake_config', config: { ...model.config, settle_ms: model.options.settleMs } };
    },

    '_fake.calls.list': (p) => {
      const method = p.optStr('method');
      return {
        type: 'fake_calls',
        calls: calls.filter((call) => method === undefined || call.method === method),
      };
    },

    '_fake.calls.clear': () => {
      calls.length = 0;
      return { type: 'ok' };
    },

    '_fake.fail_next': (p) => {
      const method = p.str('method');
      const injection = {
        code: p.optStr('code'),
        message: p.optStr('message'),
        delayMs: p.optUint('delay_ms'),
        malformed: p.optEnum('malformed', ['truncated', 'garbage', 'close']),
      };
      const queue = failures.get(method) ?? [];
      queue.push(injection);
      failures.set(method, queue);
      return { type: 'ok' };
    },

    '_fake.notifications.list': () => ({ type: 'fake_notifications', notifications }),

    '_fake.events.list': (p) => {
      const event = p.optStr('event');
      const events = model.events.log.filter((line) => event === undefined || line.event === event);
      return { type: 'fake_events', events };
    },

    '_fake.machines.set': (p) => {
      const list = p.array('machines', true).map((machine, index) => {
        if (machine === null || typeof machine !== 'object' || typeof machine.label !== 'string') {
          throw new ApiError('invalid_params', `machines[${index}] needs a label`);
        }
        return {
          id: typeof machine.id === 'string' ? machine.id : `m${index + 1}`,
          label: machine.label,
          target: typeof machine.target === 'string' ? machine.target : machine.label,
          enabled: machine.enabled !== false,
          ...(typeof machine.remote_session === 'string' ? { remote_session: machine.remote_session } : {}),
          ...(typeof machine.socket_path === 'string' ? { socket_path: machine.socket_path } : {}),
        };
      });
      const path = machinesPath(model.options.configDir);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(
        path,
        `${JSON.stringify({ version: 1, next_id: list.length + 1, machines: list }, null, 2)}\n`,
      );
      return { type: 'fake_machines', machines: list };
    },

    '_fake.machines.list': () => {
      try {
        return {
          type: 'fake_machines',
          machines: JSON.parse(readFileSync(machinesPath(model.options.configDir), 'utf8')).machines,
        };
      } catch {
        return { type: 'fake_machines', machines: [] };
      }
    },

    '_fake.shutdown': () => {
      setImmediate(shutdown);
      return { type: 'ok' };
    },
  };
}
