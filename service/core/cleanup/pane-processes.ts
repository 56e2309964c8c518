// A pane's processes as the terminal reports them (Herdr's pane.process_info, tmux's and the
// headless backend's equivalents): what the pane rule reads to tell an empty prompt from a running
// program. The core owns the record; terminal/port-records.ts checks its schema against it.

export type ForegroundProcess = {
  pid: number;
  name: string;
  argv0?: string;
  argv?: string[];
  cmdline?: string;
  cwd?: string;
};

export type ProcessInfo = {
  pane_id: string;
  shell_pid?: number;
  foreground_process_group_id?: number;
  foreground_processes: ForegroundProcess[];
};
