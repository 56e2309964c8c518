import { describe, expect, it } from 'vitest';
import {
  type CgroupMount,
  cgroupLevels,
  parseMountinfo,
  parseProcCgroup,
} from '../../../service/probe/cgroup.js';

function mount(root: string, mountPoint: string): CgroupMount {
  return { fstype: 'cgroup2', root, mountPoint, superOptions: ['rw'] };
}

describe('finding the process cgroup', () => {
  it('reads the v2 path and the v1 memory path, including combined controllers', () => {
    const text =
      '12:hugetlb:/\n4:memory,hugetlb:/docker/abc\n1:name=systemd:/init.scope\n0::/system.slice/x.service\n';
    expect(parseProcCgroup(text)).toEqual({ v2: '/system.slice/x.service', v1Memory: '/docker/abc' });
  });

  it('keeps a colon that is part of the cgroup path', () => {
    expect(parseProcCgroup('0::/machine.slice/libpod-a:b.scope\n').v2).toBe(
      '/machine.slice/libpod-a:b.scope',
    );
  });

  it('reports neither path for a file without those lines', () => {
    expect(parseProcCgroup('3:cpu,cpuacct:/\n')).toEqual({ v2: null, v1Memory: null });
  });

  it('reads cgroup mounts from mountinfo with optional fields and escaped spaces', () => {
    const text = [
      '27 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw',
      '30 23 0:26 / /sys/fs/cgroup rw,nosuid shared:4 master:1 - cgroup2 cgroup2 rw,nsdelegate',
      '35 31 0:32 /a\\040b /mnt/my\\040cgroups rw,relatime - cgroup cgroup rw,memory',
      '',
    ].join('\n');
    expect(parseMountinfo(text)).toEqual([
      { fstype: 'cgroup2', root: '/', mountPoint: '/sys/fs/cgroup', superOptions: ['rw', 'nsdelegate'] },
      { fstype: 'cgroup', root: '/a b', mountPoint: '/mnt/my cgroups', superOptions: ['rw', 'memory'] },
    ]);
  });
});

describe('walking a cgroup up to its mount', () => {
  it('lists the leaf and each ancestor up to the root of a mount at /', () => {
    expect(cgroupLevels('/user.slice/session-3.scope', [mount('/', '/sys/fs/cgroup')])).toEqual([
      { cgroup: '/user.slice/session-3.scope', dir: '/sys/fs/cgroup/user.slice/session-3.scope' },
      { cgroup: '/user.slice', dir: '/sys/fs/cgroup/user.slice' },
      { cgroup: '/', dir: '/sys/fs/cgroup' },
    ]);
  });

  it('stops at the mount point when the mount shows only part of the hierarchy', () => {
    expect(cgroupLevels('/docker/abc/app', [mount('/docker/abc', '/sys/fs/cgroup')])).toEqual([
      { cgroup: '/docker/abc/app', dir: '/sys/fs/cgroup/app' },
      { cgroup: '/docker/abc', dir: '/sys/fs/cgroup' },
    ]);
  });

  it('chooses the mount that shows the most of the path', () => {
    const levels = cgroupLevels('/docker/abc', [
      mount('/', '/sys/fs/cgroup'),
      mount('/docker/abc', '/inner'),
    ]);
    expect(levels).toEqual([{ cgroup: '/docker/abc', dir: '/inner' }]);
  });

  it('finds nothing when no mount shows the path', () => {
    expect(cgroupLevels('/docker/other', [mount('/docker/abc', '/sys/fs/cgroup')])).toBeNull();
    expect(cgroupLevels('/docker/abcdef', [mount('/docker/abc', '/sys/fs/cgroup')])).toBeNull();
    expect(cgroupLevels('/', [])).toBeNull();
  });
});
