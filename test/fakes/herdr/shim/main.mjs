// The fake `herdr` CLI. Streams and exit codes follow §3: success JSON on stdout (exit 0), a server
// error envelope on stderr (exit 1, also `server_not_running`), usage errors as plain text
// (exit 2). Globals: `--session NAME`, `--machine ID|LABEL` (0.9 only), `--version`. With
// FAKE_HERDR_VERSION=0.8 (or a 0.8 server) the `machine` group does not exist.
import { resolve } from 'node:path';
import { agentStart, parseAgentStart } from './agent-start.mjs';
import { parseFlags, UsageError } from './args.mjs';
import { NotRunning, request, resolveSocket } from './client.mjs';
import { COMMANDS, PLUGIN_PANE_COMMANDS } from './commands.mjs';
import { findMachine, MachineError, machineCommand } from './machine.mjs';

const PROTOCOL = 20;
const DEFAULT_VERSION = '0.9.5';

class Exit extends Error {
  constructor(code, { stdout = '', stderr = '' } = {}) {
    super(`exit ${code}`);
    this.exitCode = code;
    this.stdout = stdout;
    this.stderr = stderr;
  }
}

const json = (value) => `${JSON.stringify(value)}\n`;
const errorEnvelope = (id, code, message) => new Exit(1, { stderr: json({ id, error: { code, message } }) });

function normaliseVersion(text) {
  const parts = text.trim().replace(/^v/, '').split('.');
  while (parts.length < 3) parts.push('0');
  return parts.slice(0, 3).join('.');
}

/** Pulls the global options out of argv (anywhere before `--`). */
function globals(argv) {
  const words = [];
  const out = { session: undefined, machine: undefined, version: false, help: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      words.push(...argv.slice(i));
      break;
    }
    const match = /^--(session|machine)(?:=(.*))?$/.exec(arg);
    if (match) {
      const value = match[2] ?? argv[++i];
      if (value === undefined)
        throw new UsageError(`error: a value is required for '--${match[1]}' but none was supplied`);
      out[match[1]] = value;
    } else if ((arg === '--version' || arg === '-V') && words.length === 0) out.version = true;
    else if ((arg === '--help' || arg === '-h') && words.length === 0) out.help = true;
    else words.push(arg);
  }
  return { ...out, words };
}

async function serverVersion(env, session) {
  if (env.FAKE_HERDR_VERSION) return normaliseVersion(env.FAKE_HERDR_VERSION);
  try {
    const pong = await request(resolveSocket(env, session), 'cli:ping', 'ping', {});
    if (pong.result?.version) return pong.result.version;
  } catch {
    // no server: the binary's own version
  }
  return DEFAULT_VERSION;
}

function below09(version) {
  const [major, minor] = version.split('.').map(Number);
  return major === 0 && minor < 9;
}

/** Pings (protocol check, like the real CLI) and sends one request; returns the response. */
async function call(socketPath, id, method, params) {
  try {
    const pong = await request(socketPath, 'cli:ping', 'ping', {});
    if (pong.result?.protocol !== undefined && pong.result.protocol !== PROTOCOL) {
      throw errorEnvelope(
        id,
        'protocol_mismatch',
        `server protocol ${pong.result.protocol}, client ${PROTOCOL}`,
      );
    }
    return await request(socketPath, id, method, params);
  } catch (error) {
    if (error instanceof NotRunning) {
      throw errorEnvelope(id, 'server_not_running', `herdr server is not running (socket ${socketPath})`);
    }
    if (error instanceof Exit) throw error;
    throw new Exit(1, { stderr: `Error: ${error.message}\n` });
  }
}

function pluginListText(plugins) {
  if (plugins.length === 0) return 'no plugins installed\n';
  return plugins
    .map((p) => `${p.plugin_id}\t${p.version}\t${p.enabled ? 'enabled' : 'disabled'}\t${p.plugin_root}\n`)
    .join('');
}

async function run(argv, env) {
  const g = globals(argv);
  if (g.help) return { stdout: 'usage: herdr <group> <command> [options]\n' };
  const version = await serverVersion(env, g.session);
  if (g.version) return { stdout: `herdr ${version}\n` };
  const old = below09(version);
  if (g.machine !== undefined && old) throw new UsageError("error: unexpected argument '--machine' found");
  const [group, verb, ...rest] = g.words;
  if (group === undefined) throw new UsageError('usage: herdr <group> <command> [options]');
  if (group === 'machine') {
    if (old) throw new UsageError('unknown command: machine');
    return machineCommand(g.words.slice(1), env);
  }

  let socketPath = resolveSocket(env, g.session);
  const id = `cli:${group}:${verb ?? ''}`;
  if (g.machine !== undefined) {
    let machine;
    try {
      machine = findMachine(env, g.machine);
    } catch (error) {
      if (error instanceof MachineError) throw errorEnvelope(id, error.code, error.message);
      throw error;
    }
    if (!machine.enabled) throw errorEnvelope(id, 'machine_disabled', `machine ${machine.id} is disabled`);
    if (!machine.socket_path) {
      throw errorEnvelope(
        id,
        'machine_unreachable',
        `cannot reach machine ${machine.id} (${machine.target})`,
      );
    }
    socketPath = machine.socket_path;
  }

  if (group === 'agent' && verb === 'start') {
    const start = parseAgentStart(rest);
    const outcome = await agentStart(socketPath, start).catch((error) => {
      if (error instanceof NotRunning)
        throw errorEnvelope(id, 'server_not_running', 'herdr server is not running');
      throw new Exit(1, { stderr: `Error: ${error.message}\n` });
    });
    if (outcome.stderr) throw new Exit(1, { stderr: json(outcome.stderr) });
    return { stdout: json(outcome.stdout) };
  }

  let command;
  let commandArgs = rest;
  let commandId = id;
  if (group === 'plugin' && verb === 'pane') {
    command = PLUGIN_PANE_COMMANDS[rest[0]];
    commandArgs = rest.slice(1);
    commandId = `cli:plugin:pane:${rest[0] ?? ''}`;
  } else if (group === 'plugin' && verb === 'link') {
    const { flags, positionals } = parseFlags(rest, { positionals: [1, 1], flags: { disabled: 'bool' } });
    const path = resolve(positionals[0]);
    try {
      const response = await request(socketPath, id, 'plugin.link', { path, enabled: !flags.disabled });
      if (response.error) throw new Exit(1, { stderr: json(response) });
      return { stdout: json(response) };
    } catch (error) {
      if (!(error instanceof NotRunning)) throw error;
      // Offline fallback: write the registry directly, as Herdr does.
      try {
        const { linkPlugin } = await import('../lib/manifest.mjs');
        const plugin = linkPlugin(env, path, { herdrVersion: version, enabled: !flags.disabled });
        return { stdout: json({ id, result: { type: 'plugin_linked', plugin } }) };
      } catch (linkError) {
        throw errorEnvelope(id, linkError.code ?? 'plugin_registry_save_failed', linkError.message);
      }
    }
  } else if (group === 'plugin' && verb === 'list') {
    const { flags } = parseFlags(rest, { flags: { plugin: 'string', json: 'bool' } });
    const response = await call(socketPath, id, 'plugin.list', { plugin_id: flags.plugin });
    if (response.error) throw new Exit(1, { stderr: json(response) });
    return { stdout: flags.json ? json(response) : pluginListText(response.result.plugins) };
  } else {
    command = COMMANDS[group]?.[verb];
  }
  if (!command) {
    throw new UsageError(
      COMMANDS[group] || group === 'plugin'
        ? `unknown command: ${group} ${verb ?? ''}`.trim()
        : `unknown command: ${group}`,
    );
  }

  const parsed = parseFlags(commandArgs, command.spec ?? {});
  const params = command.build(parsed, env);
  const response = await call(socketPath, commandId, command.method, params);
  if (response.error) throw new Exit(1, { stderr: json(response) });
  if (command.output === 'silent') return { stdout: '' };
  if (command.output === 'raw') return { stdout: response.result.read.text };
  return { stdout: json(response) };
}

export async function main(argv = process.argv.slice(2), env = process.env) {
  try {
    const { stdout = '' } = await run(argv, env);
    process.stdout.write(stdout);
    process.exitCode = 0;
  } catch (error) {
    if (error instanceof Exit) {
      process.stdout.write(error.stdout);
      process.stderr.write(error.stderr);
      process.exitCode = error.exitCode;
    } else if (error instanceof UsageError) {
      process.stderr.write(`${error.message}\n`);
      process.exitCode = 2;
    } else if (error instanceof MachineError) {
      process.stderr.write(`Error: ${error.message}\n`);
      process.exitCode = 1;
    } else {
      process.stderr.write(`Error: ${error?.message ?? error}\n`);
      process.exitCode = 1;
    }
  }
}
