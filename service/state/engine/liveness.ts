// Who holds a lock or writes a temp file, and whether that process still runs. A process is named
// by pid plus its start time, which survives SIGSTOP, a suspended laptop and swapping, so a frozen
// holder is alive and a pid the kernel reused is not. The process table (service/process/process-table.ts)
// answers both questions.

import { nodeBinding } from '../../process/node-binding.js';
import { processAlive, selfStart } from '../../process/process-table.js';

export interface ProcessIdentity {
  pid: number;
  /**
   * Clock ticks after boot (the process table's start time); null without /proc (macOS), where liveness falls back
   * to signal 0 and accepts the pid-reuse risk that platform leaves (pids wrap at 99999 there).
   */
  start: number | null;
  hostname: string;
}

let self: ProcessIdentity | undefined;

/** This process, read once. */
export function selfIdentity(): ProcessIdentity {
  if (self === undefined) {
    self = { pid: process.pid, start: selfStart(), hostname: hostName() };
  }
  return self;
}

/**
 * The host's name as node:os's hostname() gives it: the os binding's getHostname, which hostname()
 * wraps (a context object it fills on failure, an argument a later Node ignores), else hostname()
 * itself. Loading node:os to ask costs every lock taker on the hooks' quick path (a Stop's cleanup
 * request) some 1.2 M instructions, more than the rest of its lock.
 */
function hostName(): string {
  const os = nodeBinding('os') as { getHostname?: unknown } | undefined;
  if (typeof os?.getHostname === 'function') {
    try {
      const name: unknown = os.getHostname({});
      if (typeof name === 'string' && name !== '') return name;
    } catch {
      // As if there were no binding: hostname() words the failure.
    }
  }
  return process.getBuiltinModule('node:os').hostname();
}

/**
 * true or false when `who` runs on this host; undefined when it runs elsewhere (a state dir shared
 * over the network, or a renamed host): its pid means nothing here, so the caller falls back.
 */
export function identityAlive(who: ProcessIdentity): boolean | undefined {
  if (who.hostname !== selfIdentity().hostname) return undefined;
  return processAlive(who.pid, who.start);
}
