// Host facts: systeminformation's readings as the snapshot's `facts` (probe/host-facts.ts factsOf),
// the one line status and the sidebar show (core/host-facts.ts), and a peer's facts made
// escape-free before anything shows them.

import { describe, expect, it } from 'vitest';
import { factsLine } from '../../../../service/core/fleet/facts-line.js';
import type { HostFacts } from '../../../../service/core/fleet/fleet-types.js';
import { peerView } from '../../../../service/hosts/peer-view.js';
import { type FactsReadings, factsOf } from '../../../../service/probe/host-facts.js';
import { PeerEntrySchema } from '../../../../service/state/schemas/peer-schemas.js';

const MIB = 1024 * 1024;
const GIB = 1024 * MIB;
/** A reading of systeminformation's shape with only the fields factsOf reads. */
const fulfilled = (value: object) =>
  ({ status: 'fulfilled', value }) as unknown as PromiseFulfilledResult<never>;

// biome-ignore lint/suspicious/noExplicitAny: systeminformation's records, only the fields read
const reading = (parts: Record<string, any>): FactsReadings =>
  ({
    os: fulfilled({
      platform: 'linux',
      distro: 'Debian GNU/Linux',
      release: '12',
      kernel: '6.1.0-18-amd64',
      arch: 'x64',
    }),
    cpu: fulfilled({
      manufacturer: 'AMD',
      brand: 'EPYC 7763',
      cores: 16,
      physicalCores: 8,
      performanceCores: 8,
      efficiencyCores: 0,
    }),
    mem: fulfilled({ total: 64 * GIB }),
    graphics: fulfilled({ controllers: [], displays: [] }),
    ...parts,
  }) as FactsReadings;

describe('factsOf', () => {
  it('keeps OS and kernel, CPU model and core counts, total memory and each GPU with its memory in bytes', () => {
    const facts = factsOf(
      reading({
        graphics: fulfilled({
          controllers: [
            {
              vendor: 'NVIDIA Corporation',
              model: 'AD102 [GeForce RTX 4090]',
              name: 'NVIDIA GeForce RTX 4090',
              vram: 24564,
            },
            { vendor: 'Intel Corporation', model: 'UHD Graphics 770', vram: 128, vramDynamic: true },
          ],
        }),
      }),
      1234,
    );
    expect(facts).toEqual({
      read_ms: 1234,
      os: {
        platform: 'linux',
        distro: 'Debian GNU/Linux',
        release: '12',
        kernel: '6.1.0-18-amd64',
        arch: 'x64',
      },
      cpu: {
        model: 'AMD EPYC 7763',
        cores: 16,
        physical_cores: 8,
        performance_cores: 8,
        efficiency_cores: 0,
      },
      memory_bytes: 64 * GIB,
      gpus: [
        { vendor: 'NVIDIA Corporation', model: 'NVIDIA GeForce RTX 4090', memory_bytes: 24564 * MIB },
        // Shared with main memory: no memory of its own to report.
        { vendor: 'Intel Corporation', model: 'UHD Graphics 770', memory_bytes: null },
      ],
      errors: [],
    });
  });

  it('leaves out a part that failed, with why, and strips escapes from every string', () => {
    const facts = factsOf(
      reading({
        graphics: { status: 'rejected', reason: new Error('lspci: \x1b[31mboom\nsecond line') },
        cpu: fulfilled({
          manufacturer: '\x1b]0;title\x07Apple',
          brand: 'M2 Pro',
          cores: 12,
          physicalCores: 12,
          performanceCores: 8,
          efficiencyCores: 4,
        }),
      }),
      1,
    );
    expect(facts.gpus).toBeNull();
    expect(facts.errors).toEqual(['gpus: lspci: boom second line']);
    expect(facts.cpu).toEqual({
      model: 'Apple M2 Pro',
      cores: 12,
      physical_cores: 12,
      performance_cores: 8,
      efficiency_cores: 4,
    });
  });
});

const linux: HostFacts = {
  read_ms: 1,
  os: { platform: 'linux', distro: 'Debian GNU/Linux', release: '12', kernel: '6.1.0', arch: 'x64' },
  cpu: { model: 'AMD EPYC 7763', cores: 16, physical_cores: 8, performance_cores: 8, efficiency_cores: 0 },
  memory_bytes: 64 * GIB,
  gpus: [
    { vendor: 'NVIDIA', model: 'NVIDIA GeForce RTX 4090', memory_bytes: 24 * GIB },
    { vendor: 'NVIDIA', model: 'NVIDIA GeForce RTX 4090', memory_bytes: 24 * GIB },
  ],
  errors: [],
};

describe('factsLine', () => {
  it('puts CPU, memory and GPUs before the OS, and counts GPUs of one kind', () => {
    expect(factsLine(linux)).toBe(
      'AMD EPYC 7763, 16 cores (8 physical) · 64.0 GiB · 2× NVIDIA GeForce RTX 4090 24.0 GiB · Debian GNU/Linux 12, Linux 6.1.0',
    );
  });

  it('shows performance and efficiency cores, no GPU, and macOS with its Darwin kernel', () => {
    const mac: HostFacts = {
      ...linux,
      os: { platform: 'darwin', distro: 'macOS', release: '14.5', kernel: '23.5.0', arch: 'arm64' },
      cpu: {
        model: 'Apple M2 Pro',
        cores: 12,
        physical_cores: 12,
        performance_cores: 8,
        efficiency_cores: 4,
      },
      memory_bytes: 32 * GIB,
      gpus: [],
    };
    expect(factsLine(mac)).toBe(
      'Apple M2 Pro, 12 cores (8P+4E) · 32.0 GiB · no GPU · macOS 14.5, Darwin 23.5.0',
    );
  });

  it('leaves out what could not be read', () => {
    expect(factsLine({ ...linux, cpu: null, gpus: null, os: null })).toBe('64.0 GiB');
  });
});

describe("a peer's facts", () => {
  const entry = (facts: unknown) =>
    PeerEntrySchema.parse({
      version: 1,
      id: 'p',
      target: 'p',
      attempt_ms: 1,
      read_ms: 1,
      unreachable: null,
      failures: 0,
      retry_at_ms: null,
      reply: {
        now_ms: 1,
        host: {
          hostname: 'p',
          sample_ms: 1,
          probe: null,
          headroom: {
            free_cores: null,
            measured: null,
            declared: null,
            eligible: false,
            reason: [],
            reservations: 0,
            live_agents: 0,
            active_agents: 0,
          },
          reservations: [],
          errors: [],
          ...(facts === undefined ? {} : { facts }),
        },
      },
    });
  const peer = { id: 'p', label: 'p', target: 'p', enabled: true };

  it('are escape-free in its view, as read from the wire or the cache', () => {
    const hostile: HostFacts = {
      ...linux,
      os: { ...linux.os!, distro: '\x1b[2J\x1b]52;c;ZXZpbA==\x07Debian' },
      gpus: [{ vendor: 'x\x1b[31m', model: 'RTX\r\n4090', memory_bytes: 1 }],
      errors: ['\x1b[1mbold'],
    };
    expect(peerView(peer, entry(hostile), 2).facts).toMatchObject({
      os: { distro: 'Debian' },
      gpus: [{ vendor: 'x', model: 'RTX 4090', memory_bytes: 1 }],
      errors: ['bold'],
    });
  });

  it('are null from an older peer, and a reply whose facts do not parse is still read', () => {
    expect(peerView(peer, entry(undefined), 2).facts).toBeNull();
    const view = peerView(peer, entry({ read_ms: 'soon', gpus: 'many' }), 2);
    expect(view.facts).toBeNull();
    expect(view.hostname).toBe('p');
  });
});
