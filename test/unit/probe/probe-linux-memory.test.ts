import { describe, expect, it } from 'vitest';
import { DogsledError } from '../../../service/core/common/errors.js';
import { linuxMemory, parseLimit, parseMeminfo } from '../../../service/probe/linux-memory.js';
import { rootedReader } from '../../../service/probe/proc-reader.js';
import { fixtureTree, type Tree } from '../../helpers/tree.js';

const KiB = 1024;
const MiB = 1024 * KiB;
const GiB = 1024 * MiB;

const V2_MOUNT =
  '30 23 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot';
const ROOT_MOUNT = '27 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw,discard';
const PROC_MOUNT = '22 27 0:21 / /proc rw,nosuid,nodev,noexec,relatime shared:12 - proc proc rw';
// This container's own layout: a tmpfs of v1 hierarchies with the unified tree beside them.
const HYBRID_MOUNTS = [
  '31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755',
  '32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu',
  '35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory',
  '41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw',
];

function meminfo(totalBytes: number, availableBytes: number): string {
  return [
    `MemTotal:       ${totalBytes / KiB} kB`,
    `MemFree:        ${availableBytes / KiB / 2} kB`,
    `MemAvailable:   ${availableBytes / KiB} kB`,
    'Buffers:          204800 kB',
    'Cached:          4194304 kB',
    'SwapCached:            0 kB',
    'HugePages_Total:       0',
    'Hugepagesize:       2048 kB',
    '',
  ].join('\n');
}

function v2Stat(inactiveFile: number): string {
  return `anon 734003200\nfile 1073741824\nactive_file 536870912\ninactive_file ${inactiveFile}\nslab 52428800\n`;
}

function v1Stat(inactiveFile: number, withTotals = true): string {
  const local = `cache 1073741824\nrss 734003200\ninactive_file ${inactiveFile / 2}\nactive_file 1048576\n`;
  return withTotals ? `${local}total_cache 2147483648\ntotal_inactive_file ${inactiveFile}\n` : local;
}

async function memoryOf(tree: Tree) {
  return linuxMemory(rootedReader(await fixtureTree(tree)));
}

const SESSION = '/user.slice/user-1000.slice/session-3.scope';
const SESSION_DIR = `/sys/fs/cgroup${SESSION}`;
const USER_DIR = '/sys/fs/cgroup/user.slice/user-1000.slice';

function v2Host(extra: Tree, available = 8 * GiB): Tree {
  return {
    '/proc/meminfo': meminfo(16 * GiB, available),
    '/proc/self/cgroup': `0::${SESSION}\n`,
    '/proc/self/mountinfo': [ROOT_MOUNT, PROC_MOUNT, V2_MOUNT, ''].join('\n'),
    '/sys/fs/cgroup/cgroup.controllers': 'cpuset cpu io memory pids\n',
    ...extra,
  };
}

describe('linux memory under cgroup v2', () => {
  it('reports host meminfo when every memory.max on the way up says max', async () => {
    const memory = await memoryOf(
      v2Host({
        [`${SESSION_DIR}/memory.max`]: 'max\n',
        [`${USER_DIR}/memory.max`]: 'max\n',
        '/sys/fs/cgroup/user.slice/memory.max': 'max\n',
      }),
    );
    expect(memory).toEqual({
      total_bytes: 16 * GiB,
      used_bytes: 8 * GiB,
      free_bytes: 8 * GiB,
      scope: 'host',
      cgroup: null,
      limit_bytes: null,
    });
  });

  it('reports the cgroup when a finite limit at the leaf leaves less free than the host', async () => {
    const memory = await memoryOf(
      v2Host({
        [`${SESSION_DIR}/memory.max`]: `${2 * GiB}\n`,
        [`${SESSION_DIR}/memory.current`]: `${1.5 * GiB}\n`,
        [`${SESSION_DIR}/memory.stat`]: v2Stat(512 * MiB),
        [`${USER_DIR}/memory.max`]: 'max\n',
      }),
    );
    expect(memory).toEqual({
      total_bytes: 2 * GiB,
      used_bytes: 1 * GiB,
      free_bytes: 1 * GiB,
      scope: 'cgroup',
      cgroup: SESSION,
      limit_bytes: 2 * GiB,
    });
  });

  it('lets an ancestor with a smaller limit govern, measured with its own usage', async () => {
    const memory = await memoryOf(
      v2Host({
        [`${SESSION_DIR}/memory.max`]: `${4 * GiB}\n`,
        [`${SESSION_DIR}/memory.current`]: `${1 * GiB}\n`,
        [`${SESSION_DIR}/memory.stat`]: v2Stat(0),
        [`${USER_DIR}/memory.max`]: `${3 * GiB}\n`,
        [`${USER_DIR}/memory.current`]: `${2.5 * GiB}\n`,
        [`${USER_DIR}/memory.stat`]: v2Stat(512 * MiB),
        '/sys/fs/cgroup/user.slice/memory.max': 'max\n',
      }),
    );
    expect(memory).toMatchObject({
      scope: 'cgroup',
      cgroup: '/user.slice/user-1000.slice',
      limit_bytes: 3 * GiB,
      total_bytes: 3 * GiB,
      used_bytes: 2 * GiB,
      free_bytes: 1 * GiB,
    });
  });

  it('reports the host when it has less free memory than the finite limit leaves', async () => {
    const memory = await memoryOf(
      v2Host(
        {
          [`${SESSION_DIR}/memory.max`]: `${8 * GiB}\n`,
          [`${SESSION_DIR}/memory.current`]: `${1 * GiB}\n`,
          [`${SESSION_DIR}/memory.stat`]: v2Stat(0),
        },
        2 * GiB,
      ),
    );
    expect(memory).toEqual({
      total_bytes: 16 * GiB,
      used_bytes: 14 * GiB,
      free_bytes: 2 * GiB,
      scope: 'host',
      cgroup: SESSION,
      limit_bytes: 8 * GiB,
    });
  });

  it('treats a limit of 2^62 bytes or more as no limit', async () => {
    const memory = await memoryOf(v2Host({ [`${SESSION_DIR}/memory.max`]: `${2 ** 62}\n` }));
    expect(memory).toMatchObject({ scope: 'host', cgroup: null, limit_bytes: null, total_bytes: 16 * GiB });
  });

  it('maps a container mount whose root is not / and never reads above the mount point', async () => {
    const memory = await memoryOf({
      '/proc/meminfo': meminfo(16 * GiB, 8 * GiB),
      '/proc/self/cgroup': '0::/docker/0123abcd/app\n',
      '/proc/self/mountinfo': `${ROOT_MOUNT}\n617 612 0:26 /docker/0123abcd /sys/fs/cgroup ro,nosuid - cgroup2 cgroup rw\n`,
      // Outside the mount: a smaller limit here must not govern, the container cannot see it.
      '/sys/fs/memory.max': `${256 * MiB}\n`,
      '/sys/fs/cgroup/memory.max': `${2 * GiB}\n`,
      '/sys/fs/cgroup/app/memory.max': `${1 * GiB}\n`,
      '/sys/fs/cgroup/app/memory.current': `${600 * MiB}\n`,
      '/sys/fs/cgroup/app/memory.stat': v2Stat(100 * MiB),
    });
    expect(memory).toMatchObject({
      scope: 'cgroup',
      cgroup: '/docker/0123abcd/app',
      limit_bytes: 1 * GiB,
      used_bytes: 500 * MiB,
      free_bytes: 524 * MiB,
    });
  });

  it('prefers the v2 tree over v1 when the v2 tree has memory.max files', async () => {
    const memory = await memoryOf({
      '/proc/meminfo': meminfo(16 * GiB, 8 * GiB),
      '/proc/self/cgroup': '4:memory:/job\n0::/job\n',
      '/proc/self/mountinfo': HYBRID_MOUNTS.join('\n'),
      '/sys/fs/cgroup/unified/job/memory.max': `${2 * GiB}\n`,
      '/sys/fs/cgroup/unified/job/memory.current': `${1 * GiB}\n`,
      '/sys/fs/cgroup/unified/job/memory.stat': v2Stat(0),
      '/sys/fs/cgroup/memory/job/memory.limit_in_bytes': `${1 * GiB}\n`,
    });
    expect(memory).toMatchObject({ scope: 'cgroup', cgroup: '/job', limit_bytes: 2 * GiB });
  });

  it('fails naming memory.current when a finite limit has no usage file beside it', async () => {
    const failure = memoryOf(
      v2Host({ [`${USER_DIR}/memory.max`]: `${3 * GiB}\n`, [`${USER_DIR}/memory.stat`]: v2Stat(0) }),
    );
    await expect(failure).rejects.toThrow(DogsledError);
    await expect(failure).rejects.toThrow(
      `measurement failed: ${USER_DIR}/memory.current: missing under a finite memory limit`,
    );
  });
});

describe('linux memory under cgroup v1', () => {
  function v1Host(cgroupLine: string, files: Tree): Tree {
    return {
      '/proc/meminfo': meminfo(16 * GiB, 8 * GiB),
      '/proc/self/cgroup': `9:name=systemd:/\n${cgroupLine}\n1:cpu:/\n0::/\n`,
      '/proc/self/mountinfo': HYBRID_MOUNTS.join('\n'),
      '/sys/fs/cgroup/unified/cgroup.procs': '1\n',
      ...files,
    };
  }

  it('reports host meminfo under the unlimited v1 limit this kind of container has', async () => {
    const memory = await memoryOf(
      v1Host('4:memory:/process_api/4f35787c', {
        '/sys/fs/cgroup/memory/memory.limit_in_bytes': '9223372036854771712\n',
        '/sys/fs/cgroup/memory/process_api/memory.limit_in_bytes': '9223372036854771712\n',
        '/sys/fs/cgroup/memory/process_api/4f35787c/memory.limit_in_bytes': '9223372036854771712\n',
        '/sys/fs/cgroup/memory/process_api/4f35787c/memory.usage_in_bytes': '76910592\n',
      }),
    );
    expect(memory).toMatchObject({ scope: 'host', cgroup: null, limit_bytes: null, free_bytes: 8 * GiB });
  });

  it('reports a finite v1 limit from combined controllers using total_inactive_file', async () => {
    const dir = '/sys/fs/cgroup/memory/docker/abc';
    const memory = await memoryOf(
      v1Host('4:memory,hugetlb:/docker/abc', {
        '/sys/fs/cgroup/memory/memory.limit_in_bytes': '9223372036854771712\n',
        [`${dir}/memory.limit_in_bytes`]: `${4 * GiB}\n`,
        [`${dir}/memory.usage_in_bytes`]: `${3 * GiB}\n`,
        [`${dir}/memory.stat`]: v1Stat(1 * GiB),
      }),
    );
    expect(memory).toEqual({
      total_bytes: 4 * GiB,
      used_bytes: 2 * GiB,
      free_bytes: 2 * GiB,
      scope: 'cgroup',
      cgroup: '/docker/abc',
      limit_bytes: 4 * GiB,
    });
  });

  it('falls back to inactive_file when memory.stat has no total_ counters', async () => {
    const dir = '/sys/fs/cgroup/memory/docker/abc';
    const memory = await memoryOf(
      v1Host('4:memory:/docker/abc', {
        [`${dir}/memory.limit_in_bytes`]: `${4 * GiB}\n`,
        [`${dir}/memory.usage_in_bytes`]: `${3 * GiB}\n`,
        [`${dir}/memory.stat`]: v1Stat(1 * GiB, false),
      }),
    );
    expect(memory).toMatchObject({ scope: 'cgroup', used_bytes: 2.5 * GiB, free_bytes: 1.5 * GiB });
  });
});

describe('linux memory parsing', () => {
  it('reads meminfo in kB as bytes', () => {
    expect(parseMeminfo(meminfo(16 * GiB, 3 * GiB))).toEqual({
      total_bytes: 16 * GiB,
      available_bytes: 3 * GiB,
    });
  });

  it('fails when meminfo has no MemTotal', () => {
    expect(() => parseMeminfo('MemFree: 1024 kB\nMemAvailable: 2048 kB\n')).toThrow(
      'measurement failed: /proc/meminfo: no MemTotal',
    );
  });

  it('reads max and kernel sentinels as no limit and anything else unparseable as a failure', () => {
    expect(parseLimit('max\n', 'memory.max')).toBeNull();
    expect(parseLimit('9223372036854771712\n', 'memory.limit_in_bytes')).toBeNull();
    expect(parseLimit('536870912\n', 'memory.max')).toBe(512 * MiB);
    expect(() => parseLimit('lots\n', '/sys/fs/cgroup/a/memory.max')).toThrow(
      'measurement failed: /sys/fs/cgroup/a/memory.max: unparseable number "lots"',
    );
  });

  it('uses host meminfo alone when the process has no cgroup file', async () => {
    const memory = await memoryOf({ '/proc/meminfo': meminfo(4 * GiB, 1 * GiB) });
    expect(memory).toMatchObject({ scope: 'host', total_bytes: 4 * GiB, used_bytes: 3 * GiB });
  });
});
