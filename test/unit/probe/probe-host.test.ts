import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DogsledError } from '../../../service/core/common/errors.js';
import { diskSpace } from '../../../service/probe/home-disk.js';
import { probeHost, rootedReader } from '../../../service/probe/index.js';
import { DiskSchema, MemorySchema } from '../../../service/state/schemas/host-schemas.js';
import { fixtureTree } from '../../helpers/tree.js';

const GiB = 1024 ** 3;

describe('probing this machine', () => {
  it.runIf(process.platform === 'linux')('measures plausible values on this Linux host', async () => {
    const probe = await probeHost();
    expect(probe.os).toBe('linux');
    expect(probe.cores).toBeGreaterThanOrEqual(1);
    expect(probe.load1).toBeGreaterThanOrEqual(0);
    expect(probe.cpu_ticks).not.toBeNull();
    expect(probe.cpu_ticks!.total).toBeGreaterThan(probe.cpu_ticks!.idle);
    expect(probe.busy_direct).toBeNull();
    expect(probe.pressure_level).toBeNull();
    expect(MemorySchema.parse(probe.memory)).toEqual(probe.memory);
    expect(probe.memory.total_bytes).toBeGreaterThan(0);
    expect(probe.memory.free_bytes).toBeLessThanOrEqual(probe.memory.total_bytes);
    expect(DiskSchema.parse(probe.disk)).toEqual(probe.disk);
    expect(probe.disk.total_bytes).toBeGreaterThan(0);
    expect(probe.disk.free_bytes).toBeLessThanOrEqual(probe.disk.total_bytes);
  });
});

describe('probeHost with injected dependencies', () => {
  it('composes a Linux probe from /proc files and statfs', async () => {
    const root = await fixtureTree({
      '/proc/stat':
        'cpu  100 0 50 800 50 0 0 0 0 0\ncpu0 50 0 25 400 25 0 0 0 0 0\ncpu1 50 0 25 400 25 0 0 0 0 0\n',
      '/proc/loadavg': '0.42 0.30 0.20 1/99 42\n',
      '/proc/meminfo': 'MemTotal: 8388608 kB\nMemFree: 1048576 kB\nMemAvailable: 2097152 kB\n',
    });
    const probe = await probeHost({
      platform: 'linux',
      read: rootedReader(root),
      home: '/home/agent',
      statfs: async () => ({ total_bytes: 100 * GiB, free_bytes: 40 * GiB }),
    });
    expect(probe).toEqual({
      os: 'linux',
      cores: 2,
      load1: 0.42,
      cpu_ticks: { total: 1000, idle: 850 },
      busy_direct: null,
      memory: {
        total_bytes: 8 * GiB,
        used_bytes: 6 * GiB,
        free_bytes: 2 * GiB,
        scope: 'host',
        cgroup: null,
        limit_bytes: null,
      },
      pressure_level: null,
      disk: { path: '/home/agent', total_bytes: 100 * GiB, free_bytes: 40 * GiB },
    });
  });

  it('refuses a platform it cannot measure', async () => {
    const failure = probeHost({ platform: 'win32' });
    await expect(failure).rejects.toThrow(DogsledError);
    await expect(failure).rejects.toThrow('measurement failed: platform win32: not supported');
  });

  it('fails naming the home directory when statfs fails', async () => {
    const failure = probeHost({
      home: '/nonexistent/home',
      statfs: async () => Promise.reject(new Error('ENOENT')),
    });
    await expect(failure).rejects.toThrow('measurement failed: /nonexistent/home: statfs: ENOENT');
  });

  it('counts only blocks available to unprivileged users as free disk', () => {
    expect(diskSpace({ bsize: 4096, blocks: 1000, bavail: 250 })).toEqual({
      total_bytes: 4096000,
      free_bytes: 1024000,
    });
  });
});

describe('reading probe files', () => {
  it('answers undefined for a missing file and fails for one it cannot read', async () => {
    const root = await fixtureTree({ '/proc/meminfo': 'MemTotal: 1 kB\n' });
    await mkdir(join(root, '/sys/fs/cgroup/memory.max'), { recursive: true });
    const read = rootedReader(root);
    expect(await read('/proc/meminfo')).toBe('MemTotal: 1 kB\n');
    expect(await read('/proc/missing')).toBeUndefined();
    expect(await read('/proc/meminfo/under-a-file')).toBeUndefined();
    await expect(read('/sys/fs/cgroup/memory.max')).rejects.toThrow(
      /^measurement failed: \/sys\/fs\/cgroup\/memory.max: EISDIR/,
    );
  });
});
