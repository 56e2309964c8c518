// Every command that is not hot, loaded by the dispatcher (as dist/full.mjs, with its split chunks) only for
// those: `host`, which peers run through SSH, from the chunks without commander; everything else
// through the full command line. main.ts is a file of its own so that a hot command loads no module
// but its bundle; this one holds what the others need.

import { mark } from '../service/actions/timing-marks.js';
import { runCommand } from './command.js';
import { contextFromProcess } from './context.js';

export async function runFull(
  args: string[],
  fast: { name: string; flags: Record<string, unknown> } | undefined,
): Promise<number> {
  if (fast?.name === 'host') {
    const { config, words } = fast.flags as { config?: unknown; words: string[] };
    return runCommand('host', async () => {
      const { hostCommand } = await import('./commands/host.js');
      mark('loaded');
      return hostCommand(
        words,
        contextFromProcess({ config: typeof config === 'string' ? config : undefined }),
      );
    });
  }
  const { runProgram } = await import('./program.js');
  return runProgram(args);
}

/** Prints an error that escaped a command (report.ts); returns the exit status. */
export async function reportFailure(error: unknown): Promise<number> {
  const { reportError } = await import('./report.js');
  return reportError(error, (text) => process.stderr.write(text));
}
