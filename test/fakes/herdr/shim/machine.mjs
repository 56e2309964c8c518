// Herdr 0.9 saved machines (§8.1), faked: profiles live in `<config_dir>/machines.json`
// ({version, next_id, machines:[{id, label, target, enabled, remote_session?, socket_path?}]}).
// `socket_path` is the fake's stand-in for SSH: `--machine X` forwards API commands to that
// socket. The verbs are always local (never forwarded).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { configDir } from '../lib/plugins.mjs';
import { parseFlags, requireFlag, UsageError } from './args.mjs';

export class MachineError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

function path(env) {
  return join(configDir(env), 'machines.json');
}

function load(env) {
  try {
    const data = JSON.parse(readFileSync(path(env), 'utf8'));
    return { next_id: data.next_id ?? 1, machines: data.machines ?? [] };
  } catch {
    return { next_id: 1, machines: [] };
  }
}

function save(env, data) {
  mkdirSync(dirname(path(env)), { recursive: true });
  writeFileSync(path(env), `${JSON.stringify({ version: 1, ...data }, null, 2)}\n`);
}

/** A profile by id, or by label when exactly one profile has it. */
export function findMachine(env, ref) {
  const { machines } = load(env);
  const byId = machines.find((machine) => machine.id === ref);
  if (byId) return byId;
  const byLabel = machines.filter((machine) => machine.label === ref);
  if (byLabel.length > 1) throw new MachineError('machine_ambiguous', `machine label ${ref} is not unique`);
  if (byLabel.length === 0) throw new MachineError('machine_not_found', `machine ${ref} not found`);
  return byLabel[0];
}

function describe(machine) {
  return `${machine.id}\t${machine.label}\t${machine.target}\t${machine.enabled ? 'enabled' : 'disabled'}`;
}

/** Runs `herdr machine <verb> ...`; returns { stdout } or throws UsageError/MachineError. */
export function machineCommand(argv, env) {
  const [verb, ...rest] = argv;
  const data = load(env);
  const output = (json, machine, text) => ({
    stdout: json ? `${JSON.stringify({ machine })}\n` : `${text}\n`,
  });
  const update = (ref, json, change, text) => {
    const machine = findMachine(env, ref);
    const stored = data.machines.find((entry) => entry.id === machine.id);
    change(stored);
    save(env, data);
    return output(json, stored, text(stored));
  };
  switch (verb) {
    case 'list': {
      const { flags } = parseFlags(rest, { flags: { json: 'bool' } });
      if (flags.json) return { stdout: `${JSON.stringify({ machines: data.machines })}\n` };
      return { stdout: data.machines.map((machine) => `${describe(machine)}\n`).join('') };
    }
    case 'add': {
      const { flags, positionals } = parseFlags(rest, {
        positionals: [1, 1],
        flags: { label: 'string', 'remote-session': 'string', json: 'bool' },
      });
      const label = requireFlag(flags, 'label');
      if (data.machines.some((machine) => machine.label === label)) {
        throw new MachineError('machine_label_taken', `a machine labelled ${label} already exists`);
      }
      const used = data.machines.map((machine) => Number(/^m(\d+)$/.exec(machine.id)?.[1] ?? 0));
      const number = Math.max(data.next_id, ...used.map((n) => n + 1));
      const machine = { id: `m${number}`, label, target: positionals[0], enabled: true };
      if (flags['remote-session']) machine.remote_session = flags['remote-session'];
      data.machines.push(machine);
      data.next_id = number + 1;
      save(env, data);
      return output(flags.json, machine, `added ${describe(machine)}`);
    }
    case 'rename': {
      const { flags, positionals } = parseFlags(rest, { positionals: [2, 2], flags: { json: 'bool' } });
      return update(
        positionals[0],
        flags.json,
        (m) => {
          m.label = positionals[1];
        },
        (m) => `renamed ${m.id} to ${m.label}`,
      );
    }
    case 'disable':
    case 'enable': {
      const { flags, positionals } = parseFlags(rest, { positionals: [1, 1], flags: { json: 'bool' } });
      return update(
        positionals[0],
        flags.json,
        (m) => {
          m.enabled = verb === 'enable';
        },
        (m) => `${verb}d ${m.id}`,
      );
    }
    case 'remove': {
      const { flags, positionals } = parseFlags(rest, { positionals: [1, 1], flags: { json: 'bool' } });
      const machine = findMachine(env, positionals[0]);
      data.machines = data.machines.filter((entry) => entry.id !== machine.id);
      save(env, data);
      return output(flags.json, machine, `removed ${machine.id}`);
    }
    default:
      throw new UsageError(`unknown command: machine ${verb ?? ''}`.trim());
  }
}
