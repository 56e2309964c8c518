// Escape sequences a user types never reach the terminal through dogsled's own output: every flag
// of every command (read from the real command table, so a new flag is covered the day it lands),
// every positional argument, --config, an unknown option and an unknown command get a payload of
// CSI, OSC, DCS, 8-bit C1 and C0 controls, and nothing on stdout or stderr may carry one. An error
// stays one line naming its command.

import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../../cli/program.js';
import { runCli, type Sandbox, sandbox } from '../../helpers/cli.js';

/** Clears the screen, sets the window title, a hyperlink, a DCS string, 8-bit CSI, BEL, BS and CR. */
const PAYLOAD =
  'x\x1b[2J\x1b]0;pwned\x07\x1b]8;;http://e.test\x1b\\link\x1bP1$r\x1b\\\x9b31m\x07\x08\r\x1b[Ay';

/** Any C0 control but newline and tab, DEL, and every C1 control: what a terminal acts on. */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
/** What is left of a sequence whose ESC alone was dropped: the sequences go whole. */
const REMNANT = /\[2J|pwned|\]8;;|P1\$r|\[Ay/;

interface Case {
  name: string;
  args: string[];
}

/** Benign values for positional arguments, so the payload is the only odd thing in each run. */
function positionals(command: Command): string[][] {
  const args: string[][] = [];
  for (const argument of command.registeredArguments) {
    if (argument.name() === 'command') args.push(['--', 'true']);
    else if (argument.required)
      args.push([argument.name() === 'ticket' ? 't_nope00000000' : 'j_nope00000000']);
  }
  return args;
}

function cases(): Case[] {
  const program = buildProgram(() => {});
  const out: Case[] = [{ name: 'an unknown command', args: [PAYLOAD] }];
  for (const command of program.commands) {
    const name = command.name();
    const slots = positionals(command);
    // Options go before a `--` that ends the flags.
    const withOptions = (options: string[]) => {
      const plain = slots.filter((slot) => slot[0] !== '--').flat();
      const tail = slots.filter((slot) => slot[0] === '--').flat();
      return [name, ...plain, ...options, ...tail];
    };
    for (const option of command.options) {
      const flag = option.long ?? option.short ?? '';
      if (flag === '--help' || flag === '--version') continue;
      // A flag that takes no value gets the payload as `--flag=PAYLOAD`, an unknown option.
      const args = option.required || option.optional ? [flag, PAYLOAD] : [`${flag}=${PAYLOAD}`];
      out.push({ name: `${name} ${flag}`, args: withOptions(args) });
    }
    out.push({ name: `${name} --config`, args: ['--config', PAYLOAD, ...withOptions([])] });
    out.push({ name: `${name} an unknown option`, args: withOptions([`--${PAYLOAD}`]) });
    slots.forEach((_slot, index) => {
      const args = slots.map((other, at) =>
        at !== index ? other : other[0] === '--' ? ['--', PAYLOAD] : [PAYLOAD],
      );
      const plain = args.filter((slot) => slot[0] !== '--').flat();
      const tail = args.filter((slot) => slot[0] === '--').flat();
      out.push({ name: `${name} argument ${index + 1}`, args: [name, ...plain, ...tail] });
    });
    if (name === 'prune') out.push({ name: 'prune a category', args: ['prune', '--yes', PAYLOAD] });
  }
  return out;
}

let box: Sandbox;

beforeAll(async () => {
  box = await sandbox();
});

afterAll(async () => {
  await box.cleanup();
});

describe('escape sequences in what a user types', () => {
  const all = cases();

  it('covers every command of the command table with a flag, --config and an unknown option', () => {
    const names = new Set(all.map((entry) => entry.args.find((arg) => !arg.startsWith('-')) ?? ''));
    for (const command of buildProgram(() => {}).commands) expect(names).toContain(command.name());
    expect(all.length).toBeGreaterThan(60);
  });

  it('never reach stdout or stderr, and an error stays one line naming its command', async () => {
    const failures: string[] = [];
    const queue = [...all];
    // A few at a time: the machine is shared.
    const worker = async () => {
      for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
        const result = await runCli(next.args, box.env, { timeoutMs: 30_000 });
        const where = `${next.name} (exit ${result.code})`;
        if (CONTROL.test(result.stdout)) failures.push(`${where}: stdout ${JSON.stringify(result.stdout)}`);
        if (CONTROL.test(result.stderr)) failures.push(`${where}: stderr ${JSON.stringify(result.stderr)}`);
        if (REMNANT.test(result.stdout + result.stderr)) {
          failures.push(`${where}: remnant ${JSON.stringify(result.stdout + result.stderr)}`);
        }
        if (result.code === 2 && !/^dogsled: [^\n]+\n$/.test(result.stderr)) {
          failures.push(`${where}: not one line: ${JSON.stringify(result.stderr)}`);
        }
        const command = next.args.find((arg, i) => !arg.startsWith('-') && next.args[i - 1] !== '--config');
        if (result.code === 2 && command !== PAYLOAD && !result.stderr.startsWith(`dogsled: ${command}`)) {
          failures.push(`${where}: does not name ${command}: ${JSON.stringify(result.stderr)}`);
        }
      }
    };
    await Promise.all([worker(), worker(), worker(), worker()]);
    expect(failures).toEqual([]);
  }, 240_000);
});
