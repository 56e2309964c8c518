import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { expiredJobs } from '../../../service/core/jobs/job-expiry.js';
import type { JobRecord } from '../../../service/core/jobs/job-types.js';
import { statePaths } from '../../../service/state/paths.js';
import {
  jobLogPath,
  jobRecordPath,
  listJobRecords,
  removeJob,
} from '../../../service/state/records/job-records.js';
import { tempDir, writeTree } from '../../helpers/tree.js';

const NOW = 1_700_000_000_000;
const DAY = 86_400_000;

function record(id: string, fields: Partial<JobRecord> = {}): JobRecord {
  return {
    version: 1,
    id,
    command: ['sh', '-c', 'echo hi; exit 3'],
    cwd: '/tmp',
    host: 'local',
    owner: null,
    pane: 'w1:p2',
    created_ms: NOW - 2 * DAY,
    started_ms: NOW - 2 * DAY + 50,
    ended_ms: NOW - 2 * DAY + 1_000,
    exit_code: 3,
    signal: null,
    reason: null,
    ...fields,
  };
}

async function jobsDir(files: Record<string, string>) {
  const paths = statePaths(await tempDir());
  await writeTree(
    paths.dir,
    Object.fromEntries(Object.entries(files).map(([name, text]) => [`jobs/${name}`, text])),
  );
  return paths;
}

describe('listJobRecords', () => {
  test('a host that never ran a job has no records', async () => {
    expect(await listJobRecords(statePaths(await tempDir()))).toEqual({ records: [], problems: [] });
  });

  test('lists records oldest first, keeping fields a newer dogsled wrote', async () => {
    const paths = await jobsDir({
      'j_b.json': JSON.stringify({ ...record('j_b', { created_ms: NOW }), peak_rss_bytes: 1234 }),
      'j_a.json': JSON.stringify(record('j_a')),
      'j_a.log': 'hi\n',
      'j_c.json.1a2b3c': 'partial temp file',
      'j_d.json.bad-1700000000000': 'quarantined',
    });
    const listing = await listJobRecords(paths);
    expect(listing.problems).toEqual([]);
    expect(listing.records.map((r) => r.id)).toEqual(['j_a', 'j_b']);
    expect(listing.records[1]).toMatchObject({ peak_rss_bytes: 1234 });
  });

  test('a bad record is reported and the others are still listed, and nothing is moved', async () => {
    const paths = await jobsDir({
      'j_ok.json': JSON.stringify(record('j_ok')),
      'j_torn.json': '{"version":1,"id":',
      'j_shape.json': JSON.stringify({ ...record('j_shape'), exit_code: 'three' }),
      'j_name.json': JSON.stringify(record('j_other')),
    });
    const listing = await listJobRecords(paths);
    expect(listing.records.map((r) => r.id)).toEqual(['j_ok']);
    expect(listing.problems).toEqual([
      { path: join(paths.jobs, 'j_name.json'), reason: 'record id "j_other" does not match its file name' },
      { path: join(paths.jobs, 'j_shape.json'), reason: expect.stringMatching(/^schema: exit_code: /) },
      { path: join(paths.jobs, 'j_torn.json'), reason: expect.stringMatching(/^not JSON: /) },
    ]);
    expect((await readdir(paths.jobs)).sort()).toEqual([
      'j_name.json',
      'j_ok.json',
      'j_shape.json',
      'j_torn.json',
    ]);
  });

  test('the records that expire are the ones that ended more than 24 hours ago', async () => {
    const paths = await jobsDir({
      'j_old.json': JSON.stringify(record('j_old')),
      'j_recent.json': JSON.stringify(record('j_recent', { ended_ms: NOW - 60_000 })),
      'j_running.json': JSON.stringify(
        record('j_running', { ended_ms: null, exit_code: null, created_ms: NOW - 9 * DAY }),
      ),
    });
    const { records } = await listJobRecords(paths);
    expect(expiredJobs(records, NOW).map((r) => r.id)).toEqual(['j_old']);
  });
});

describe('removeJob', () => {
  test('removes the log and the record, then reports gone on a second call', async () => {
    const paths = await jobsDir({
      'j_a.json': JSON.stringify(record('j_a')),
      'j_a.log': 'hi\n',
      'j_b.log': 'b',
    });
    expect(await removeJob(paths, 'j_a')).toEqual({
      kind: 'removed',
      paths: [jobLogPath(paths, 'j_a'), jobRecordPath(paths, 'j_a')],
    });
    expect(await readdir(paths.jobs)).toEqual(['j_b.log']);
    expect(await removeJob(paths, 'j_a')).toEqual({ kind: 'gone' });
  });

  test('a record without a log is removed too', async () => {
    const paths = await jobsDir({ 'j_a.json': JSON.stringify(record('j_a')) });
    expect(await removeJob(paths, 'j_a')).toEqual({ kind: 'removed', paths: [jobRecordPath(paths, 'j_a')] });
  });

  test('refuses an id that could name a file outside jobs/', async () => {
    const paths = await jobsDir({});
    await writeFile(join(paths.dir, 'host.json'), '{}');
    await expect(removeJob(paths, '../host')).rejects.toThrow('job id "../host" is not valid');
    expect(await readdir(paths.dir)).toContain('host.json');
  });
});
