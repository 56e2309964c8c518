// What every command receives instead of reaching for process globals: environment, clock,
// output streams and the resolved paths. It is the service's ProcessIO (and so its StateIO) as it
// stands: a command hands it to service functions as is, and io.ts adds config.toml for HostIO.
// Tests run the real CLI in a child process with a private HOME and DOGSLED_STATE; nothing here is
// mocked.

import { resolve } from 'node:path';
import { callerPlaces, type ProcessIO } from '../service/actions/verb-io.js';
import { plainLine } from '../service/core/text/clean.js';
import { stdoutIsTTY, writeOut } from './stdout.js';

export interface CliContext extends ProcessIO {
  stateDir: string;
  config: { path: string; explicit: boolean };
  out: (text: string) => void;
  readonly stdoutIsTTY: boolean;
  readonly color: boolean;
}

export interface GlobalOptions {
  config?: string;
  terminal?: string;
}

export function contextFromProcess(globals: GlobalOptions): CliContext {
  const env = process.env;
  // Exported, so the processes a command starts (job panes, the service) choose the same terminal.
  if (globals.terminal) env.DOGSLED_TERMINAL = globals.terminal;
  if (globals.config) env.DOGSLED_CONFIG = resolve(globals.config);
  // node:os only where HOME is unset: every command starts here.
  const home = env.HOME || process.getBuiltinModule('node:os').homedir();
  const { stateDir, paths, config, now } = callerPlaces(env, home, globals.config);
  return {
    env,
    home,
    now,
    stateDir,
    paths,
    config,
    out: writeOut,
    // Warnings quote files and flags other programs and people wrote: one plain line each.
    warn: (line) => process.stderr.write(`${plainLine(line)}\n`),
    // Asked only by the commands that format for a terminal: the question loads process.stdout.
    get stdoutIsTTY() {
      return stdoutIsTTY();
    },
    get color() {
      return stdoutIsTTY() && !('NO_COLOR' in env) && env.TERM !== 'dumb';
    },
  };
}
