// One process of a pane's foreground group as the TerminalPort reports it (name, argv, working
// directory), read from the process table; shared by the headless and tmux backends.

import type { ForegroundProcess } from '../core/cleanup/pane-processes.js';
import { commandLine, type ProcStat, workingDirectory } from '../process/process-table.js';

export async function foregroundRecord(stat: ProcStat): Promise<ForegroundProcess> {
  const record: ForegroundProcess = { pid: stat.pid, name: stat.comm };
  const argv = await commandLine(stat.pid);
  if (argv !== undefined) {
    record.argv = argv;
    record.cmdline = argv.join(' ');
  }
  const cwd = await workingDirectory(stat.pid);
  if (cwd !== undefined) record.cwd = cwd;
  return record;
}
