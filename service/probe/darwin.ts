// macOS memory, pressure and CPU busy from the system's own commands: vm_stat, sysctl and iostat.
// The parsers are pure and tested on recorded output; `darwinHost` only runs the commands through
// an injected runner. iostat measures busy over its own one-second window, so no tick state is kept.

import { messageOf } from '../core/common/errors.js';
import type { Memory } from '../core/placement/host-types.js';
import { endingOf, type RunResult, runProcess, SpawnError, succeeded } from '../process/run-process.js';
import { measurementFailed } from './proc-reader.js';

/** Runs a program (never a shell) and resolves with its stdout. */
export type Run = (cmd: string, args: string[], timeoutMs: number) => Promise<string>;

const QUICK_TIMEOUT_MS = 5_000;
// iostat -c 2 -w 1 prints a since-boot row, waits one second, prints the window we want.
const IOSTAT_TIMEOUT_MS = 10_000;

export interface VmStat {
  page_size_bytes: number;
  free_pages: number;
  inactive_pages: number;
  speculative_pages: number;
}

export interface DarwinHost {
  memory: Memory;
  pressure_level: number;
  busy_direct: number;
}

export function parseVmStat(text: string): VmStat {
  const pageSize = /page size of (\d+) bytes/.exec(text)?.[1];
  if (!pageSize) throw measurementFailed('vm_stat output', 'no page size line');
  const pages = new Map<string, number>();
  for (const line of text.split('\n')) {
    const match = /^"?([^":]+)"?:\s+(\d+)\.?\s*$/.exec(line.trim());
    if (match) pages.set(match[1]!, Number(match[2]));
  }
  const count = (key: string): number => {
    const value = pages.get(key);
    if (value === undefined) throw measurementFailed('vm_stat output', `no "${key}" line`);
    return value;
  };
  return {
    page_size_bytes: Number(pageSize),
    free_pages: count('Pages free'),
    inactive_pages: count('Pages inactive'),
    speculative_pages: count('Pages speculative'),
  };
}

/** `sysctl -n hw.memsize`: physical memory in bytes. */
export function parseMemsize(text: string): number {
  return parseInteger(text, 'sysctl hw.memsize');
}

/** `sysctl -n kern.memorystatus_vm_pressure_level`: 1 normal, 2 warn, 4 critical. */
export function parsePressureLevel(text: string): number {
  return parseInteger(text, 'sysctl kern.memorystatus_vm_pressure_level');
}

/**
 * The cpu idle percentage of the last row of `iostat -c 2 -w 1`. The first row averages since
 * boot. The column is found by the header's tokens because each disk adds a column group.
 */
export function parseIostatIdle(text: string): number {
  const rows = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .map((line) => line.split(/\s+/));
  const headerAt = rows.findIndex((row) => row.includes('us') && row.includes('id'));
  const header = rows[headerAt];
  if (!header) throw measurementFailed('iostat output', 'no header row with us and id columns');
  const last = rows
    .slice(headerAt + 1)
    .filter((row) => row.every((token) => /^\d+(\.\d+)?$/.test(token)))
    .at(-1);
  if (!last) throw measurementFailed('iostat output', 'no data rows');
  if (last.length !== header.length) {
    throw measurementFailed(
      'iostat output',
      `last row has ${last.length} columns, header has ${header.length}`,
    );
  }
  const idle = Number(last[header.indexOf('id')]);
  if (idle > 100) throw measurementFailed('iostat output', `idle ${idle}% is over 100`);
  return idle;
}

/** Available is what macOS can hand out without swapping: free, inactive and speculative pages. */
export function darwinMemory(vm: VmStat, totalBytes: number): Memory {
  const available = (vm.free_pages + vm.inactive_pages + vm.speculative_pages) * vm.page_size_bytes;
  return {
    total_bytes: totalBytes,
    used_bytes: Math.max(0, totalBytes - available),
    free_bytes: available,
    scope: 'host',
    cgroup: null,
    limit_bytes: null,
  };
}

export async function darwinHost(run: Run): Promise<DarwinHost> {
  const [vmStat, memsize, pressure, iostat] = await Promise.all([
    run('vm_stat', [], QUICK_TIMEOUT_MS),
    run('sysctl', ['-n', 'hw.memsize'], QUICK_TIMEOUT_MS),
    run('sysctl', ['-n', 'kern.memorystatus_vm_pressure_level'], QUICK_TIMEOUT_MS),
    run('iostat', ['-c', '2', '-w', '1'], IOSTAT_TIMEOUT_MS),
  ]);
  return {
    memory: darwinMemory(parseVmStat(vmStat), parseMemsize(memsize)),
    pressure_level: parsePressureLevel(pressure),
    busy_direct: 1 - parseIostatIdle(iostat) / 100,
  };
}

/** Output kept: these commands print a few lines; more means something else answered. */
const MAX_OUTPUT_BYTES = 1 << 20;

export const runCommand: Run = async (cmd, args, timeoutMs) => {
  const what = [cmd, ...args].join(' ');
  let result: RunResult;
  try {
    // SIGKILL on timeout: these commands hold no state worth a graceful exit.
    result = await runProcess(cmd, args, {
      env: process.env,
      timeoutMs,
      killGraceMs: 0,
      maxOutputBytes: MAX_OUTPUT_BYTES,
    });
  } catch (error) {
    if (error instanceof SpawnError && error.code === 'ENOENT')
      throw measurementFailed(what, 'command not found');
    throw measurementFailed(what, messageOf(error));
  }
  if (!succeeded(result)) throw measurementFailed(what, failureReason(result, timeoutMs));
  return result.stdout.toString('utf8');
};

function failureReason(result: RunResult, timeoutMs: number): string {
  const firstLine = result.stderr.toString('utf8').trim().split('\n')[0];
  const ending = endingOf(result, timeoutMs);
  return ending.startsWith('exited') && firstLine ? `${ending}: ${firstLine}` : ending;
}

function parseInteger(text: string, what: string): number {
  const value = text.trim();
  if (!/^\d+$/.test(value)) throw measurementFailed(what, `unparseable output "${value}"`);
  return Number(value);
}
