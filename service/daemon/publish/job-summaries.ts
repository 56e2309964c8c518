// The jobs host.json publishes: every record in jobs/, summarised. Ended records never change, so
// each is read once per service run; only records still running are read again each tick.

import type { JobRecord, JobSummary } from '../../core/jobs/job-types.js';
import { dirNames } from '../../state/engine/dir-names.js';
import type { StatePaths } from '../../state/paths.js';
import { readJobRecord } from '../../state/records/job-records.js';

export class JobSummaries {
  private readonly ended = new Map<string, JobSummary>();

  constructor(private readonly paths: StatePaths) {}

  /** Oldest first. An unreadable record is left out (doctor reports it); a missing jobs/ is none. */
  async read(): Promise<JobSummary[]> {
    let names: string[];
    try {
      names = dirNames(this.paths.jobs) ?? [];
    } catch {
      return [];
    }
    const ids = names.filter((name) => name.endsWith('.json')).map((name) => name.slice(0, -'.json'.length));
    const present = new Set(ids);
    for (const id of this.ended.keys()) if (!present.has(id)) this.ended.delete(id);
    const summaries: JobSummary[] = [];
    for (const id of ids) {
      const known = this.ended.get(id);
      if (known) {
        summaries.push(known);
        continue;
      }
      const record = await readJobRecord(this.paths, id).catch(() => undefined);
      if (record === undefined) continue;
      const summary = summaryOf(record);
      if (summary.ended_ms !== null) this.ended.set(id, summary);
      summaries.push(summary);
    }
    return summaries.sort((a, b) => a.created_ms - b.created_ms || a.id.localeCompare(b.id));
  }
}

function summaryOf(record: JobRecord): JobSummary {
  return {
    id: record.id,
    command: record.command,
    cwd: record.cwd,
    host: record.host,
    owner: record.owner,
    pane: record.pane,
    created_ms: record.created_ms,
    started_ms: record.started_ms,
    ended_ms: record.ended_ms,
    exit_code: record.exit_code,
    signal: record.signal,
    reason: record.reason,
    peak_rss_bytes: record.peak_rss_bytes ?? null,
    cpu_ms: record.cpu_ms ?? null,
  };
}
