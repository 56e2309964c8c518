import { describe, expect, test } from 'vitest';
import { paint } from '../../../cli/render/color.js';
import { renderJobTable, renderStopOutcome, shortBytes } from '../../../cli/render/jobs-human.js';
import { commandLine } from '../../../cli/render/text.js';
import type { JobView } from '../../../service/jobs/job-list.js';
import { createdRecord } from '../../integration/jobs/job-inspect-fixture.js';

const NOW = 1_700_000_000_000;

function view(id: string, fields: Partial<JobView>): JobView {
  return { ...createdRecord(id, { created_ms: NOW - 1_000 }), state: 'created', ...fields };
}

describe('the ps table', () => {
  test('cuts the command to the width, never below 20 characters', () => {
    const job = view('j_a', { command: ['sh', '-c', 'x'.repeat(200)] });
    const [, row] = renderJobTable([job], NOW, 60, paint(false));
    expect(row?.length).toBe(60);
    expect(row?.endsWith('…')).toBe(true);
    const [, narrow] = renderJobTable([job], NOW, 10, paint(false));
    expect(narrow?.split('  ').at(-1)?.length).toBe(20);
  });

  test('shows how long a job waited, ran or took, and the end token of an ended job', () => {
    const rows = renderJobTable(
      [
        view('j_w', { created_ms: NOW - 4_000 }),
        view('j_r', { state: 'running', created_ms: NOW - 200_000, started_ms: NOW - 90_000 }),
        view('j_e', {
          state: 'ended',
          started_ms: NOW - 10_000,
          ended_ms: NOW - 7_000,
          signal: 'SIGKILL',
        }),
      ],
      NOW,
      80,
      paint(false),
    );
    expect(rows.slice(1).map((row) => row.split(/ {2,}/).slice(0, 5))).toEqual([
      ['j_w', 'created', 'local', '-', '4s'],
      ['j_r', 'running', 'local', '-', '90s'],
      ['j_e', 'ended', 'local', 'SIGKILL', '3s'],
    ]);
  });

  test('adds CPU and MEM columns only when a listed job was measured', () => {
    const plain = renderJobTable([view('j_p', {})], NOW, 120, paint(false));
    expect(plain[0]).toMatch(/^ID\s+STATE\s+HOST\s+END\s+TIME\s+COMMAND$/);
    const ended = view('j_m', {
      state: 'ended',
      started_ms: NOW - 3_000,
      ended_ms: NOW,
      exit_code: 0,
      cpu_ms: 1_250,
      peak_rss_bytes: 47 * 1024 * 1024,
    });
    const rows = renderJobTable([ended, view('j_c', {})], NOW, 120, paint(false));
    expect(rows[0]).toMatch(/^ID\s+STATE\s+HOST\s+END\s+TIME\s+CPU\s+MEM\s+COMMAND$/);
    expect(rows[1]?.split(/ {2,}/).slice(0, 7)).toEqual([
      'j_m',
      'ended',
      'local',
      'exit 0',
      '3s',
      '1s',
      '47M',
    ]);
    expect(rows[2]?.split(/ {2,}/).slice(0, 7)).toEqual(['j_c', 'created', 'local', '-', '1s', '-', '-']);
    expect([shortBytes(812 * 1024), shortBytes(1.5 * 1024 ** 3), shortBytes(null)]).toEqual([
      '812K',
      '1.5G',
      '-',
    ]);
  });

  test('a command from a record never carries terminal escapes or line breaks', () => {
    expect(commandLine(['echo', '\x1b]52;c;aGk=\x07hi\r\n\tthere', '\x9b2J'])).toBe("echo 'hi there' ''");
  });
});

describe('stop results', () => {
  test('name what happened in one line', () => {
    const record = createdRecord('j_s', { ended_ms: NOW, reason: 'stopped', signal: 'SIGTERM' });
    expect(renderStopOutcome({ kind: 'stopped', record, sent: 'SIGTERM' })).toBe(
      'j_s stopped (sent SIGTERM)',
    );
    const natural = { ...record, reason: null, signal: null, exit_code: 0 };
    expect(renderStopOutcome({ kind: 'stopped', record: natural, sent: 'SIGTERM' })).toBe(
      'j_s ended (exit 0; sent SIGTERM)',
    );
    expect(renderStopOutcome({ kind: 'ended', record: natural })).toBe('j_s already ended (exit 0)');
  });
});
