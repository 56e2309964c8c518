// `dogsled status` for people keeps every line of a host's block within 80 columns: the disk line's
// path (a home or state dir of any length) is cut at its start, where it says least.
import { describe, expect, it } from 'vitest';
import { paint } from '../../../cli/render/color.js';
import { renderStatus } from '../../../cli/render/status-human.js';
import type { StatusReport } from '../../../service/hosts/view.js';
import { hostViewFixture } from '../../helpers/host-view.js';

const GIB = 1024 ** 3;

function report(diskPath: string): StatusReport {
  const host = hostViewFixture('local', 0.5, {
    path: diskPath,
    total_bytes: 252 * GIB,
    free_bytes: 75.5 * GIB,
  });
  return { version: 1, now_ms: 10_000, hosts: [host], items: [], queue: [], sweep: null };
}

const diskLine = (path: string) =>
  renderStatus(report(path), paint(false)).find((line) => line.startsWith('  disk')) ?? '';

describe('status, the disk line', () => {
  it('shows a short path whole', () => {
    expect(diskLine('/home/ann')).toBe('  disk      75.5 GiB free of 252.0 GiB (30%) · /home/ann');
  });

  it('cuts a long path at its start to stay within 80 columns, its end kept', () => {
    const path = '/tmp/dogsled-cli-21e95c-ArzCdi/home/with/a/rather/long/tail';
    const line = diskLine(path);
    expect(line).toHaveLength(80);
    expect(line).toMatch(/ · …[^…]+\/long\/tail$/);
    expect(path.endsWith(line.slice(line.indexOf('…') + 1))).toBe(true);
  });

  it('never leaves half of a surrogate pair where it cut', () => {
    const line = diskLine(`/home/${'😀'.repeat(40)}`);
    expect(line.length).toBeLessThanOrEqual(80);
    expect(line).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
  });
});
