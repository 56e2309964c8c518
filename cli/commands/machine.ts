// `dogsled machine list|rename|disable|enable|reconnect|add`: the fleet's host list
// (service/actions/machine.ts): Herdr's saved machines when it has any, else `[[hosts]]` in
// dogsled's config. Prints one line per change, or the list as a table; --json one document.

import {
  addMachine,
  enableMachine,
  listMachinesOf,
  type MachineIO,
  type MachineOutcome,
  reconnectMachine,
  renameMachine,
} from '../../service/actions/machine.js';
import { DogsledError } from '../../service/core/common/errors.js';
import { plainLine } from '../../service/core/text/clean.js';
import type { CliContext } from '../context.js';
import { hostIO } from '../io.js';

export interface MachineFlags {
  json?: boolean;
  label?: string;
}

const USAGE = 'list | rename ID LABEL | disable ID | enable ID | reconnect ID | add TARGET [--label NAME]';

export async function machineCommand(
  verb: string | undefined,
  args: string[],
  flags: MachineFlags,
  ctx: CliContext,
): Promise<number> {
  const io: MachineIO = { ...(await hostIO(ctx)), configFile: { path: ctx.config.path, home: ctx.home } };
  const want = (count: number): string[] => {
    if (args.length !== count) throw new DogsledError(`${verb}: expected ${count} argument(s): ${USAGE}`);
    return args;
  };
  switch (verb) {
    case 'list':
    case undefined: {
      want(0);
      const fleet = await listMachinesOf(io);
      if (flags.json) {
        ctx.out(`${JSON.stringify({ source: fleet.source, hosts: fleet.peers })}\n`);
        return 0;
      }
      const rows = fleet.peers.map((h) => [h.id, h.label, h.target, h.enabled ? 'enabled' : 'disabled']);
      const from = fleet.source === 'herdr' ? "Herdr's saved machines" : `[[hosts]] in ${ctx.config.path}`;
      if (rows.length === 0) {
        ctx.out(`no peers (${from}); add one with: dogsled machine add user@host --label NAME\n`);
        return 0;
      }
      ctx.out(`${table([['ID', 'LABEL', 'TARGET', 'STATE'], ...rows]).join('\n')}\n(${plainLine(from)})\n`);
      return 0;
    }
    case 'rename': {
      const [ref, label] = want(2) as [string, string];
      return report(ctx, flags, await renameMachine(io, ref, label), 'renamed');
    }
    case 'disable':
    case 'enable': {
      const [ref] = want(1) as [string];
      return report(ctx, flags, await enableMachine(io, ref, verb === 'enable'), `${verb}d`);
    }
    case 'add': {
      const [target] = want(1) as [string];
      return report(ctx, flags, await addMachine(io, { target, label: flags.label }), 'added');
    }
    case 'reconnect': {
      const [ref] = want(1) as [string];
      return report(ctx, flags, await reconnectMachine(io, ref), 'reconnected');
    }
    default:
      throw new DogsledError(`unknown verb "${verb}" (${USAGE})`);
  }
}

function report(ctx: CliContext, flags: MachineFlags, outcome: MachineOutcome, done: string): number {
  if (flags.json) {
    ctx.out(`${JSON.stringify(outcome)}\n`);
  } else if (outcome.kind === 'changed') {
    const h = outcome.host;
    ctx.out(
      `${done} ${plainLine(h.id)}: ${plainLine(h.label)} (${plainLine(h.target)}, ${h.enabled ? 'enabled' : 'disabled'})\n`,
    );
  } else if (outcome.kind === 'tab') {
    ctx.out(`opened a focused tab (pane ${plainLine(outcome.pane)}) running: ${plainLine(outcome.line)}\n`);
  }
  if (outcome.kind === 'interactive' && outcome.code !== 0) {
    throw new DogsledError(`${outcome.argv.join(' ')} exited with ${outcome.code}`);
  }
  return 0;
}

function table(rows: string[][]): string[] {
  const clean = rows.map((row) => row.map(plainLine));
  const widths = clean[0]?.map((_, i) => Math.max(...clean.map((row) => (row[i] ?? '').length))) ?? [];
  return clean.map((row) =>
    row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join('  '),
  );
}
