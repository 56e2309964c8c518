// This host's job records (jobs/*.json) as the lean `ps --json` glances at them: each read once
// (engine/glance-file.ts) and checked by hand (checks/job-record-check.ts), listed as
// listJobRecords (job-records.ts) lists them. Anything it would report as a problem (a record that is
// not a regular file, not JSON, not a record or not of its file's name, a jobs/ that cannot be read)
// is undefined, and the caller takes the full reader, which words it.

import { type Dirent, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { isJobId, oldestFirst } from '../../core/jobs/job-status.js';
import type { JobRecord } from '../../core/jobs/job-types.js';
import { isJobRecord, JobRecordCheck } from '../checks/job-record-check.js';
import { glanceJson, glanceRecord } from '../engine/glance-file.js';
import type { StatePaths } from '../paths.js';

/**
 * The record of job `id` as readJobRecord (job-records.ts) reads it; null for an unknown job (no
 * record, or an id that names none); undefined when in doubt (readJobRecord's error).
 */
export function glanceJobRecord(paths: StatePaths, id: string): JobRecord | null | undefined {
  if (!isJobId(id)) return null;
  const read = glanceRecord(join(paths.jobs, `${id}.json`), JobRecordCheck);
  if (read === undefined) return undefined;
  if (!read.found) return null;
  return read.value.id === id ? read.value : undefined;
}

/**
 * The records `shown` keeps, oldest first, each checked whole (JobRecordCheck's data, as the full
 * reader gives it); [] without jobs/; undefined when any record, shown or not, is in doubt. A record
 * not shown is only judged sound (isJobRecord): `ps --json` prints the running jobs, and a host
 * keeps a day of ended ones, which would otherwise each be copied field by field to be dropped.
 */
export function glanceJobRecords(
  paths: StatePaths,
  shown: (record: JobRecord) => boolean = () => true,
): JobRecord[] | undefined {
  let entries: Dirent[];
  try {
    entries = readdirSync(paths.jobs, { withFileTypes: true });
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? [] : undefined;
  }
  const records: JobRecord[] = [];
  for (const entry of entries) {
    const name = entry.name;
    // Quarantined copies end in .bad-<ms> and temp files in .tmp-<writer>: not records.
    if (!name.endsWith('.json')) continue;
    // Listed as a regular file: read without a stat of its own. Anything else is glanced at as
    // ever (and refused), as is an entry of a file system that does not give types.
    const read = glanceJson(join(paths.jobs, name), entry.isFile());
    if (read === undefined) return undefined;
    // Removed by a concurrent prune between readdir and read: not a record.
    if (!read.found) continue;
    const value = read.value;
    if (!isJobRecord(value) || value.id !== name.slice(0, -'.json'.length)) return undefined;
    if (!shown(value)) continue;
    const checked = JobRecordCheck.safeParse(value);
    if (!checked.success) return undefined;
    records.push(checked.data);
  }
  return records.sort(oldestFirst);
}
