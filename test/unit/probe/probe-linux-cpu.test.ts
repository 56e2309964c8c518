import { describe, expect, it } from 'vitest';
import { busyBetween } from '../../../service/core/placement/cpu-busy.js';
import { linuxCpu, parseHostCpuStat, parseLoadavg } from '../../../service/probe/linux-cpu.js';
import { rootedReader } from '../../../service/probe/proc-reader.js';
import { fixtureTree } from '../../helpers/tree.js';

function procStat(aggregate: string): string {
  return [
    `cpu  ${aggregate}`,
    'cpu0 2533012 72674 771180 11707120 4170 0 12598 43907 300 0',
    'cpu1 2533047 72674 771180 11707121 4171 0 4199 43907 300 0',
    'cpu2 2533047 72674 771180 11707121 4171 0 4199 43907 300 0',
    'cpu3 2533047 72674 771179 11707121 4171 0 4199 43907 300 0',
    'intr 1529870423 28 9 0 0 0 0 0 0 1 0 0 0 156 0 0 0',
    'ctxt 2896730183',
    'btime 1718035522',
    'processes 3867123',
    'procs_running 3',
    'procs_blocked 0',
    'softirq 301553788 4 70564417 2052 12811347 0 0 6532 103891268 0 114276168',
    '',
  ].join('\n');
}

// user nice system idle iowait irq softirq steal guest guest_nice
const FIRST = '10132153 290696 3084719 46828483 16683 0 25195 175628 1200 0';
// 1000 ticks later: 700 user, 50 system, 240 idle, 10 iowait.
const SECOND = '10132853 290696 3084769 46828723 16693 0 25195 175628 1200 0';

describe('linux cpu from /proc/stat', () => {
  it('sums user through steal as total and idle plus iowait as idle, leaving guest inside user', () => {
    expect(parseHostCpuStat(procStat(FIRST))).toEqual({
      cpu_ticks: { total: 60553557, idle: 46845166 },
      cores: 4,
    });
  });

  it('gives a busy share that matches the ticks spent between two readings', () => {
    const first = parseHostCpuStat(procStat(FIRST)).cpu_ticks;
    const second = parseHostCpuStat(procStat(SECOND)).cpu_ticks;
    expect(second.total - first.total).toBe(1000);
    expect(busyBetween(first, second)).toBeCloseTo(0.75, 10);
    expect(busyBetween(second, first)).toBeNull();
  });

  it('fails naming the file when the aggregate cpu line is missing', () => {
    expect(() => parseHostCpuStat('cpu0 1 2 3 4 5 6 7 8\n')).toThrow(
      'measurement failed: /proc/stat: no aggregate cpu line',
    );
  });

  it('fails on a short or non-numeric aggregate line rather than guessing', () => {
    expect(() => parseHostCpuStat('cpu  1 2 3 4\ncpu0 1 2 3 4\n')).toThrow(
      'has 4 columns, expected at least 8',
    );
    expect(() => parseHostCpuStat(procStat('1 2 3 x 5 6 7 8 0 0'))).toThrow('non-numeric "x"');
  });

  it('reads load1 from the first field of /proc/loadavg', () => {
    expect(parseLoadavg('0.52 0.58 0.59 2/1045 123456\n')).toBe(0.52);
    expect(() => parseLoadavg('\n')).toThrow('measurement failed: /proc/loadavg: unparseable load ""');
  });

  it('reads both files through the injected reader', async () => {
    const read = rootedReader(
      await fixtureTree({ '/proc/stat': procStat(FIRST), '/proc/loadavg': '1.25 0.90 0.70 3/512 999\n' }),
    );
    expect(await linuxCpu(read)).toEqual({
      cpu_ticks: { total: 60553557, idle: 46845166 },
      cores: 4,
      load1: 1.25,
    });
  });

  it('fails naming /proc/stat when it cannot be read', async () => {
    const read = rootedReader(await fixtureTree({ '/proc/loadavg': '0.1 0.1 0.1 1/1 1\n' }));
    await expect(linuxCpu(read)).rejects.toThrow('measurement failed: /proc/stat: missing');
  });
});
