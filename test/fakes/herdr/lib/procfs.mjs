// Reads pane processes from /proc the way Herdr's Linux backend does: a shell's foreground process
// group comes from the controlling tty (stat field 8, tpgid), a process's name from stat's comm and
// its argv from cmdline. Every reader returns undefined for a process that is gone.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** Parses /proc/<pid>/stat; comm may hold spaces and parentheses, so split after the last ')'. */
export function readStat(pid) {
  let text;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  const fields = text.slice(close + 2).split(' ');
  return {
    pid,
    comm: text.slice(open + 1, close),
    state: fields[0],
    ppid: Number(fields[1]),
    pgrp: Number(fields[2]),
    session: Number(fields[3]),
    tpgid: Number(fields[5]),
  };
}

export function readArgv(pid) {
  try {
    const raw = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    if (raw === '') return undefined;
    return raw.replace(/\0$/, '').split('\0');
  } catch {
    return undefined;
  }
}

export function readCwd(pid) {
  try {
    return readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    return undefined;
  }
}

export function readEnvVar(pid, name) {
  try {
    const prefix = `${name}=`;
    for (const entry of readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')) {
      if (entry.startsWith(prefix)) return entry.slice(prefix.length);
    }
  } catch {
    // gone or not ours: no value
  }
  return undefined;
}

export function childrenOf(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
    return text === '' ? [] : text.split(' ').map(Number);
  } catch {
    return [];
  }
}

function allStats() {
  const stats = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(Number(entry));
    if (stat) stats.push(stat);
  }
  return stats;
}

/** Every live process in a process group (a full /proc scan: use it on demand, not per tick). */
export function groupMembers(pgid) {
  return allStats()
    .filter((stat) => stat.pgrp === pgid && stat.state !== 'Z')
    .map((stat) => stat.pid);
}

/** SIGKILLs every process of a session, so a pane's background jobs die with it. */
export function killSession(sid) {
  killSessions(new Set([sid]));
}

/** killSession for many sessions with one /proc scan (server shutdown). */
export function killSessions(sids) {
  for (const stat of allStats()) {
    if (!sids.has(stat.session)) continue;
    try {
      process.kill(stat.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

/** One PaneProcessInfoProcess record (name = comm, like Herdr's). */
export function processRecord(pid) {
  const stat = readStat(pid);
  if (!stat) return undefined;
  const argv = readArgv(pid);
  const cwd = readCwd(pid);
  const record = { pid, name: stat.comm };
  if (argv) {
    record.argv0 = argv[0];
    record.argv = argv;
    record.cmdline = argv.join(' ');
  }
  if (cwd) record.cwd = cwd;
  return record;
}
