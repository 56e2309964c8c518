// What the host is, through systeminformation: `dogsled host facts` on this machine, with a GPU
// that stand-in lspci and nvidia-smi (on PATH, where systeminformation looks for them) describe,
// escape sequences in their text included; serve publishing those facts in host.json once, read in
// a child at start, shown by `status --json` and `status`; and a GPU tool that hangs never stalling
// publication (the child is killed at its deadline, its process group with it).

import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HostViewSchema } from '../../../service/hosts/view-schemas.js';
import { HostFactsSchema, HostSnapshotSchema } from '../../../service/state/schemas/host-schemas.js';
import { exited, runCli, type Sandbox, sandbox, startCli } from '../../helpers/cli.js';
import { waitFor } from '../../helpers/wait.js';

const MIB = 1024 * 1024;

const LSPCI = `#!/bin/sh
cat <<'OUT'
01:00.0 VGA compatible controller: NVIDIA Corporation AD102 [GeForce RTX 4090] (rev a1) (prog-if 00 [VGA controller])
	Subsystem: Micro-Star International Co., Ltd. [MSI] Device 5103
	Memory at e0000000 (64-bit, prefetchable) [size=256M]
	Kernel driver in use: nvidia
OUT
`;
// The product name carries an OSC title sequence and a colour: text from another program.
const NVIDIA_SMI = `#!/bin/sh
printf '550.54.14, 0x51031462, \\033]0;owned\\007NVIDIA GeForce \\033[31mRTX 4090, 00000000:01:00.0, 30, 24564, 1, 24000, 0, 0, 40, N/A, 20.5, 450.00, 210, 405\\n'
`;

let box: Sandbox;
let env: NodeJS.ProcessEnv;
let tools: string;

beforeEach(async () => {
  box = await sandbox();
  tools = join(box.root, 'gpu-tools');
  await mkdir(tools);
  await writeFile(join(tools, 'lspci'), LSPCI);
  await writeFile(join(tools, 'nvidia-smi'), NVIDIA_SMI);
  await chmod(join(tools, 'lspci'), 0o755);
  await chmod(join(tools, 'nvidia-smi'), 0o755);
  env = { ...box.env, PATH: `${tools}:${box.env.PATH}` };
});
afterEach(() => box.cleanup());

describe('dogsled host facts', () => {
  it("reads this host's OS, CPU and memory, and each GPU with its memory, escape-free", async () => {
    const done = await runCli(['host', 'facts'], env, { timeoutMs: 60_000 });
    expect(done.stderr).toBe('');
    const facts = HostFactsSchema.parse(JSON.parse(done.stdout));
    expect(facts.errors).toEqual([]);
    expect(facts.os).toMatchObject({ platform: process.platform, arch: process.arch });
    expect(facts.os?.kernel).not.toBe('');
    expect(facts.cpu?.cores).toBe(cpus().length);
    expect(facts.cpu?.model).not.toBe('');
    expect(facts.memory_bytes).toBe(totalmem());
    expect(facts.gpus).toEqual([
      { vendor: 'NVIDIA Corporation', model: 'NVIDIA GeForce RTX 4090', memory_bytes: 24564 * MIB },
    ]);
    expect(done.stdout).not.toMatch(/\\u001b|\u001b|\u0007/);
  });
});

describe('serve', () => {
  it('publishes the facts once read, and status shows them, one line per host', async () => {
    const serve = startCli(['serve'], env);
    try {
      const snapshot = await waitFor(
        'host.json with facts',
        async () => {
          const text = await readFile(join(box.state, 'host.json'), 'utf8').catch(() => '');
          const parsed = text ? HostSnapshotSchema.parse(JSON.parse(text)) : undefined;
          return parsed?.facts ? parsed : undefined;
        },
        { timeoutMs: 30_000 },
      );
      expect(snapshot.facts?.gpus).toEqual([
        { vendor: 'NVIDIA Corporation', model: 'NVIDIA GeForce RTX 4090', memory_bytes: 24564 * MIB },
      ]);
      const json = JSON.parse((await runCli(['status', '--json'], env)).stdout);
      const local = HostViewSchema.parse(json.hosts[0]);
      expect(local.facts).toEqual(snapshot.facts);
      const human = (await runCli(['status'], env)).stdout.split('\n');
      const system = human.filter((line) => line.startsWith('  system '));
      expect(system).toHaveLength(1);
      expect(system[0]).toMatch(/^ {2}system {4}.+, \d+ cores? .*· NVIDIA GeForce RTX 4090 24\.0 GiB · /);
      expect(system[0]).toContain(`${snapshot.facts?.cpu?.cores} core`);
      expect(system[0]!.length).toBeLessThanOrEqual(80);
    } finally {
      serve.kill('SIGTERM');
    }
    expect((await exited(serve)).code).toBe(0);
    expect(serve.output()).not.toMatch(/host facts/);
  });

  it('keeps publishing while a GPU tool hangs, then says the facts timed out, leaving nothing running', async () => {
    const marker = join(box.root, 'hung-nvidia-smi');
    await writeFile(join(tools, 'nvidia-smi'), `#!/bin/sh\necho $$ > '${marker}'\nexec sleep 600\n`);
    const hung = { ...env, DOGSLED_TEST: '1', DOGSLED_TEST_FACTS_TIMEOUT_MS: '5000' };
    const serve = startCli(['serve'], hung);
    try {
      // The tool hangs: snapshots go on without facts meanwhile.
      await waitFor('nvidia-smi started', async () => (existsSync(marker) ? true : undefined), {
        timeoutMs: 30_000,
      });
      // The facts child may start before the first publication: the snapshot published meanwhile.
      const during = await waitFor(
        'a snapshot while the tool hangs',
        async () =>
          HostSnapshotSchema.parse(JSON.parse(await readFile(join(box.state, 'host.json'), 'utf8'))),
        { timeoutMs: 30_000 },
      );
      expect(during.facts).toBeNull();
      const after = await waitFor(
        'facts with the timeout',
        async () => {
          const snapshot = HostSnapshotSchema.parse(
            JSON.parse(await readFile(join(box.state, 'host.json'), 'utf8')),
          );
          return snapshot.facts ? snapshot : undefined;
        },
        { timeoutMs: 30_000 },
      );
      expect(after.facts).toMatchObject({
        os: null,
        cpu: null,
        gpus: null,
        errors: ['dogsled host facts timed out'],
      });
      expect(after.sample_ms).toBeGreaterThan(during.sample_ms);
      // The hung tool went with the child's process group.
      const pid = Number(await readFile(marker, 'utf8'));
      await waitFor('the hung tool gone', async () => (isAlive(pid) ? undefined : true), {
        timeoutMs: 10_000,
      });
    } finally {
      serve.kill('SIGTERM');
    }
    expect((await exited(serve)).code).toBe(0);
    expect(serve.output().match(/host facts: dogsled host facts timed out/g)).toHaveLength(1);
  });

  it('publishes no facts with --once, which ends before a child could answer', async () => {
    const once = await runCli(['serve', '--once'], env, { timeoutMs: 30_000 });
    expect(once.code).toBe(0);
    const snapshot = HostSnapshotSchema.parse(
      JSON.parse(await readFile(join(box.state, 'host.json'), 'utf8')),
    );
    expect(snapshot.facts).toBeNull();
    expect((await runCli(['status'], env)).stdout).not.toMatch(/^ {2}system /m);
  });
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
