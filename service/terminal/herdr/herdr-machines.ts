// Herdr 0.9 saved machines, read with `herdr machine list --json`. Older Herdr has no machine verbs
// and rejects the command as a usage error (exit 2, `unknown command: machine`): that capability
// answer, never a version string, is what makes the list null. Machine verbs are local management
// commands, so they need the binary but not a running server.

import { type Machine, MachineSchema, parseRecord } from '../port-records.js';
import { TerminalError } from '../terminal-errors.js';
import { interpretRun, runHerdr } from './herdr-cli.js';
import { findHerdrBinary } from './locate.js';

const METHOD = 'machine.list';

export async function listMachines(
  binary: string | undefined,
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<Machine[] | null> {
  if (binary === undefined) return null;
  const run = await runHerdr(binary, ['machine', 'list', '--json'], { env, timeoutMs });
  if (run.exitCode === 2) return null;
  if (run.exitCode !== 0) {
    // Exit 1 carries Herdr's error envelope; interpretRun turns it into the TerminalError.
    interpretRun(run, { args: [], output: 'envelope' }, METHOD, 'herdr machine list');
  }
  return machinesOf(parseOutput(run.stdout));
}

function parseOutput(stdout: string): unknown {
  try {
    return JSON.parse(stdout);
  } catch {
    throw new TerminalError('protocol', `herdr machine list: output is not JSON`, { method: METHOD });
  }
}

/** The list is printed bare, as `{machines: [...]}`, or inside a result envelope. */
function machinesOf(value: unknown): Machine[] {
  let list = value;
  if (list && typeof list === 'object' && !Array.isArray(list)) {
    const object = list as Record<string, unknown>;
    list = object.result && typeof object.result === 'object' ? object.result : object;
    list = (list as Record<string, unknown>).machines;
  }
  if (!Array.isArray(list)) {
    throw new TerminalError('protocol', 'herdr machine list: no machine list in the output', {
      method: METHOD,
    });
  }
  return list.map((entry) => parseRecord(MachineSchema, entry, METHOD));
}

/** Machines as a cache kept them, checked again like a reply (a protocol failure when not). */
export function checkedMachines(records: readonly unknown[]): Machine[] {
  return records.map((entry) => parseRecord(MachineSchema, entry, METHOD));
}

/** This user's saved machines, or null when no herdr binary is found or it has no machine verbs. */
export async function savedMachines(env: NodeJS.ProcessEnv, timeoutMs: number): Promise<Machine[] | null> {
  return listMachines(await findHerdrBinary(env), env, timeoutMs);
}

/**
 * `herdr machine <verb> args…` for a change (rename, disable, enable, remove) when this Herdr has
 * machine verbs: the changed machine, or null when it has none (or no binary is found). Herdr's
 * refusal (an unknown machine, a label taken) is its TerminalError.
 */
export async function changeMachine(
  env: NodeJS.ProcessEnv,
  args: readonly string[],
  timeoutMs: number,
): Promise<Machine | null> {
  const binary = await findHerdrBinary(env);
  if (binary === undefined) return null;
  const run = await runHerdr(binary, ['machine', ...args, '--json'], { env, timeoutMs });
  if (run.exitCode === 2 && /unknown command/.test(run.stderr)) return null;
  const method = `machine.${args[0] ?? ''}`;
  if (run.exitCode !== 0)
    interpretRun(run, { args: [], output: 'envelope' }, method, `herdr machine ${args[0]}`);
  const value = parseOutput(run.stdout) as { machine?: unknown; result?: { machine?: unknown } };
  return parseRecord(MachineSchema, value.machine ?? value.result?.machine, method);
}
