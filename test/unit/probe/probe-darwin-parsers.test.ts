import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import {
  darwinHost,
  darwinMemory,
  parseIostatIdle,
  parseMemsize,
  parsePressureLevel,
  parseVmStat,
} from '../../../service/probe/darwin.js';

const fixture = (name: string) => readFile(new URL(`../../fixtures/darwin/${name}`, import.meta.url), 'utf8');

describe('macOS vm_stat and sysctl', () => {
  it('reads the page size from the first line and the free, inactive and speculative pages', async () => {
    expect(parseVmStat(await fixture('vm_stat.txt'))).toEqual({
      page_size_bytes: 16384,
      free_pages: 5623,
      inactive_pages: 301822,
      speculative_pages: 7234,
    });
  });

  it('counts free, inactive and speculative pages as available memory', async () => {
    const vm = parseVmStat(await fixture('vm_stat.txt'));
    const total = parseMemsize(await fixture('sysctl-hw.memsize.txt'));
    const available = (5623 + 301822 + 7234) * 16384;
    expect(darwinMemory(vm, total)).toEqual({
      total_bytes: 17179869184,
      used_bytes: 17179869184 - available,
      free_bytes: available,
      scope: 'host',
      cgroup: null,
      limit_bytes: null,
    });
  });

  it('fails when vm_stat has no page size line', () => {
    expect(() => parseVmStat('Pages free: 1.\n')).toThrow(
      'measurement failed: vm_stat output: no page size line',
    );
  });

  it('fails when vm_stat lacks a page count it needs', () => {
    expect(() =>
      parseVmStat('Mach Virtual Memory Statistics: (page size of 4096 bytes)\nPages free: 1.\n'),
    ).toThrow('no "Pages inactive" line');
  });

  it('reads the pressure level as a number', async () => {
    expect(parsePressureLevel(await fixture('sysctl-kern.memorystatus_vm_pressure_level.txt'))).toBe(2);
    expect(() => parsePressureLevel('unknown oid\n')).toThrow('unparseable output "unknown oid"');
  });
});

describe('macOS iostat', () => {
  it('takes idle from the last row of a two-disk output by the header position of id', async () => {
    expect(parseIostatIdle(await fixture('iostat-two-disks.txt'))).toBe(83);
  });

  it('takes idle from the last row of a one-disk output', async () => {
    expect(parseIostatIdle(await fixture('iostat-one-disk.txt'))).toBe(95);
  });

  it('fails without a header row or without data rows', () => {
    expect(() => parseIostatIdle('')).toThrow('measurement failed: iostat output: no header row');
    expect(() => parseIostatIdle('  disk0  cpu\n KB/t tps MB/s us sy id\n')).toThrow('no data rows');
  });

  it('fails when the last row does not line up with the header', () => {
    expect(() => parseIostatIdle('KB/t tps MB/s us sy id\n1.0 2 0.1 3 4\n')).toThrow(
      'last row has 5 columns',
    );
  });
});

describe('macOS measurement through an injected runner', () => {
  it('runs each command by argv and combines the parsed outputs', async () => {
    const outputs: Record<string, string> = {
      vm_stat: await fixture('vm_stat.txt'),
      'sysctl -n hw.memsize': await fixture('sysctl-hw.memsize.txt'),
      'sysctl -n kern.memorystatus_vm_pressure_level': await fixture(
        'sysctl-kern.memorystatus_vm_pressure_level.txt',
      ),
      'iostat -c 2 -w 1': await fixture('iostat-two-disks.txt'),
    };
    const host = await darwinHost(async (cmd, args, timeoutMs) => {
      expect(timeoutMs).toBeGreaterThan(0);
      const output = outputs[[cmd, ...args].join(' ')];
      if (output === undefined) throw new Error(`unexpected command ${cmd} ${args.join(' ')}`);
      return output;
    });
    expect(host.busy_direct).toBeCloseTo(0.17, 10);
    expect(host.pressure_level).toBe(2);
    expect(host.memory.total_bytes).toBe(17179869184);
  });
});
