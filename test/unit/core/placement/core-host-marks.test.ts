import { describe, expect, it } from 'vitest';
import { type GlanceFacts, glance } from '../../../../service/core/placement/host-marks.js';

const up: GlanceFacts = {
  label: 'netcup',
  reachable: true,
  service: 'up',
  eligible: true,
  probe: { cores: 16, busy: 0.2, load1: 3.4 },
};

describe('a host at a glance', () => {
  it('shows busy cores over cores, rounded', () => {
    expect(glance(up)).toBe('netcup 3/16');
  });

  it('marks a host that takes no work with ▲', () => {
    expect(glance({ ...up, eligible: false })).toBe('netcup 3/16 ▲');
  });

  it('keeps the last numbers of a host whose service is down and adds ?', () => {
    expect(glance({ ...up, service: 'down', eligible: false })).toBe('netcup 3/16 ?');
  });

  it('marks an unreachable host with ?', () => {
    expect(glance({ ...up, reachable: false })).toBe('netcup 3/16 ?');
  });

  it('prints only ? for a host without measurements', () => {
    expect(glance({ ...up, probe: null, eligible: false })).toBe('netcup ?');
  });

  it('shows load over cores before the first CPU sample', () => {
    expect(glance({ ...up, eligible: false, probe: { cores: 7, busy: null, load1: 1.26 } })).toBe(
      'netcup load 1.3/7 ▲',
    );
  });
});
