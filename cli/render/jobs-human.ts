// Human text for the job commands: the `ps` table and the one-line results of `stop`. The TIME
// column is how long the job has waited (created), run (running) or took (ended); CPU and MEM, shown
// when a listed job has them, are what an ended job used (CPU time, peak memory). Commands, hosts
// and reasons come from record files that any process could have written, so they are stripped of
// terminal escapes and cut to the width before they reach the terminal.

import type { JobView } from '../../service/actions/ps.js';
import type { StopOutcome } from '../../service/actions/stop.js';
import { formatAge } from '../../service/core/common/duration.js';
import { endToken, succeeded } from '../../service/core/jobs/job-status.js';
import { clip, plainLine } from '../../service/core/text/clean.js';
import type { Paint } from './color.js';
import { commandLine } from './text.js';

const HOST_WIDTH = 12;
const END_WIDTH = 16;
/** A command is never cut shorter than this, even on a narrow terminal. */
const MIN_COMMAND = 20;
const GAP = '  ';

interface Column {
  header: string;
  text: (job: JobView, now: number) => string;
  colour: (job: JobView, paint: Paint) => (text: string) => string;
}

const plain = () => (text: string) => text;

/** Every column but the command, which takes the rest of the width; CPU and MEM only when measured. */
const COLUMNS: Column[] = [
  { header: 'ID', text: (job) => plainLine(job.id), colour: plain },
  { header: 'STATE', text: (job) => job.state, colour: stateColour },
  { header: 'HOST', text: (job) => clip(plainLine(job.host), HOST_WIDTH), colour: plain },
  {
    header: 'END',
    text: (job) => (job.ended_ms === null ? '-' : clip(plainLine(endToken(job)), END_WIDTH)),
    colour: endColour,
  },
  { header: 'TIME', text: (job, now) => formatAge(timeOf(job, now)), colour: plain },
];

const USAGE: Column[] = [
  {
    header: 'CPU',
    text: (job) => (typeof job.cpu_ms === 'number' ? formatAge(job.cpu_ms) : '-'),
    colour: plain,
  },
  { header: 'MEM', text: (job) => shortBytes(job.peak_rss_bytes), colour: plain },
];

function measured(job: JobView): boolean {
  return typeof job.cpu_ms === 'number' || typeof job.peak_rss_bytes === 'number';
}

/** Peak memory in a few characters: 812K, 45M, 1.5G; `-` when unknown. */
export function shortBytes(bytes: number | null | undefined): string {
  if (typeof bytes !== 'number') return '-';
  const units = ['K', 'M', 'G', 'T'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const shown = value < 10 && unit > 0 ? value.toFixed(1) : String(Math.round(value));
  return `${shown}${units[unit]}`;
}

export function renderJobTable(jobs: readonly JobView[], now: number, width: number, paint: Paint): string[] {
  const columns = jobs.some(measured) ? [...COLUMNS, ...USAGE] : COLUMNS;
  const cells = jobs.map((job) => columns.map((column) => column.text(job, now)));
  const widths = columns.map((column, i) =>
    Math.max(column.header.length, ...cells.map((row) => (row[i] ?? '').length)),
  );
  const commandWidth = Math.max(MIN_COMMAND, width - widths.reduce((sum, w) => sum + w + GAP.length, 0));
  const header = [...columns.map((column, i) => column.header.padEnd(widths[i] ?? 0)), 'COMMAND'];
  const lines = [paint.dim(header.join(GAP))];
  jobs.forEach((job, row) => {
    const shown = columns.map((column, i) =>
      column.colour(job, paint)((cells[row]?.[i] ?? '').padEnd(widths[i] ?? 0)),
    );
    lines.push([...shown, clip(commandLine(job.command), commandWidth)].join(GAP));
  });
  return lines;
}

export function emptyJobsLine(all: boolean): string {
  return all ? 'no jobs' : 'no jobs running (dogsled ps --all also lists ended jobs)';
}

export function renderStopOutcome(outcome: StopOutcome): string {
  const { record } = outcome;
  switch (outcome.kind) {
    case 'ended':
      return `${record.id} already ended (${plainLine(endToken(record))})`;
    case 'requested':
      return `${record.id} has not started: stop requested; it ends as stopped when it starts`;
    case 'stopped': {
      const how = outcome.sent === null ? 'its process group was already gone' : `sent ${outcome.sent}`;
      // The job may have ended on its own while stop ran: then its real end is named.
      return record.reason === 'stopped'
        ? `${record.id} stopped (${how})`
        : `${record.id} ended (${plainLine(endToken(record))}; ${how})`;
    }
    case 'signalled': {
      const what = outcome.sent === null ? 'stop requested' : `sent ${outcome.sent}`;
      return `${record.id}: ${what}; its wrapper has not recorded the end yet (dogsled wait ${record.id})`;
    }
  }
}

function timeOf(job: JobView, now: number): number {
  if (job.ended_ms !== null) return job.ended_ms - (job.started_ms ?? job.created_ms);
  return now - (job.started_ms ?? job.created_ms);
}

function stateColour(job: JobView, paint: Paint): (text: string) => string {
  if (job.state === 'running') return paint.green;
  if (job.state === 'lost') return paint.red;
  return plain();
}

function endColour(job: JobView, paint: Paint): (text: string) => string {
  if (job.ended_ms === null || succeeded(job)) return plain();
  return paint.yellow;
}
