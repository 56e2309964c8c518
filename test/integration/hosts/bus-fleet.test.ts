// The fleet bus with a real nats-server (2.9, JetStream in a temporary directory): three services,
// each with its own state directory and host id and no [[hosts]] nor SSH, find each other in
// `status --json` through the hosts bucket; a frozen publisher goes stale; the server stopped makes
// every bus peer `bus down` (its last snapshot kept) while local status still answers, and started
// again brings them back; hostile documents in the bucket are ignored with a warning and never shown
// raw; credentials that the server refuses, or a credentials file others may read, are one line.

import { chmod, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Kvm } from '@nats-io/kv';
import { createUser } from '@nats-io/nkeys';
import { connect, credsAuthenticator, type NodeConnectionOptions } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StatusReportSchema } from '../../../service/hosts/view-schemas.js';
import { exited, runCli, type Sandbox, sandbox, startCli } from '../../helpers/cli.js';
import { HIDDEN, hostileReply } from '../../helpers/hostile-snapshot.js';
import { NatsServer } from '../../helpers/nats-server.js';
import { type WaitWhat, waitFor } from '../../helpers/wait.js';

interface Host {
  id: string;
  box: Sandbox;
  serve: ReturnType<typeof startCli>;
}

let nats: NatsServer;
/** The server of the credentials' cases, which needs them (its own describe starts it). */
let locked: NatsServer;

/**
 * Polls a check that runs the CLI, every 100 ms. Giving up, it says how a server of this file ended
 * if it is not running (a test's planned stop says so too).
 */
function eventually<T>(check: () => Promise<T | undefined>, timeoutMs: number, what: WaitWhat): Promise<T> {
  const described = () =>
    // Either may not be started yet (each describe starts its own).
    `${typeof what === 'string' ? what : what()}${[nats, locked].map((server) => server?.note() ?? '').join('')}`;
  return waitFor(described, check, { timeoutMs, intervalMs: 100 }) as Promise<T>;
}

/** Connects to `server`; a refusal says how the server ended if it is not running. */
async function connectTo(server: NatsServer, options: Omit<NodeConnectionOptions, 'servers'> = {}) {
  return connect({ ...options, servers: server.url }).catch((error: unknown) => {
    throw server.explain(error);
  });
}

const hosts: Host[] = [];

async function startHost(id: string, server: NatsServer, extra = ''): Promise<Host> {
  const box = await sandbox();
  await writeFile(box.configPath, `[fleet]\nbus = "${server.url}"\nid = "${id}"\n${extra}`);
  const serve = startCli(['serve', '--interval', '0.5'], box.env);
  return { id, box, serve };
}

async function stopHost(host: Host): Promise<void> {
  host.serve.kill('SIGCONT');
  host.serve.kill('SIGTERM');
  await exited(host.serve);
  await host.box.cleanup();
}

async function status(host: Host, env: NodeJS.ProcessEnv = {}) {
  const result = await runCli(['status', '--json'], { ...host.box.env, ...env });
  expect(result.code, result.stderr).toBe(0);
  return StatusReportSchema.parse(JSON.parse(result.stdout));
}

function byId(report: Awaited<ReturnType<typeof status>>) {
  return new Map(report.hosts.map((h) => [h.id, h]));
}

beforeAll(async () => {
  // Messages large enough for the 50 MB document a hostile host may put: the bucket refuses it.
  nats = await NatsServer.start('max_payload: 67108864');
  for (const id of ['alpha', 'bravo', 'charlie']) hosts.push(await startHost(id, nats));
});

afterAll(async () => {
  await Promise.all(hosts.map(stopHost));
  await nats?.stop();
});

describe('the fleet bus', () => {
  it('three services see each other in status --json, with no [[hosts]] and no SSH', async () => {
    for (const host of hosts) {
      const others = hosts.filter((h) => h !== host).map((h) => h.id);
      const report = await eventually(
        async () => {
          const seen = byId(await status(host));
          return others.every((id) => seen.get(id)?.unreachable === null && seen.get(id)?.hostname)
            ? seen
            : undefined;
        },
        15_000,
        `${host.id} to see ${others.join(', ')}`,
      );
      expect([...report.keys()].sort()).toEqual(['local', ...others].sort());
      for (const id of others) {
        expect(report.get(id)).toMatchObject({ reachable: true, local: false, service: 'up' });
        // Its verbs answer on the bus: whether it takes work is its headroom's alone.
        expect(report.get(id)?.headroom.reason.join('; ')).not.toContain('bus peer');
      }
    }
  });

  it('ignores hostile documents with a warning and shows a snapshot with escapes cleaned', async () => {
    const [alpha] = hosts as [Host];
    const nc = await connectTo(nats);
    try {
      const kv = await new Kvm(nc).open('dogsled_hosts');
      await kv.put('evil', JSON.stringify(hostileReply(Date.now())));
      await kv.put('wrong', JSON.stringify({ now_ms: 'soon', host: { hostname: 7 } }));
      await kv.put('notjson', '\u001b]0;pwned\u0007{');
      // The bucket refuses a value over the snapshot limit (2.9 would store it and stall every watch).
      await expect(kv.put('big', new Uint8Array(50 * 1024 * 1024).fill(0x61))).rejects.toThrow();
      const seen = await eventually(
        async () => {
          const report = byId(await status(alpha));
          return report.get('evil')?.hostname ? report : undefined;
        },
        15_000,
        'the hostile host in status',
      );
      expect(seen.get('evil')?.hostname).toBe('evil-host');
      // A document that does not say its host answers verbs on the bus (an older dogsled's): no work.
      expect(seen.get('evil')?.headroom).toMatchObject({
        eligible: false,
        reason: expect.arrayContaining(['bus peer: answers no host verbs on the bus (an older dogsled)']),
      });
      for (const key of ['wrong', 'notjson', 'big']) expect(seen.has(key)).toBe(false);
      await eventually(
        async () => (alpha.serve.output().includes('bus host notjson:') ? true : undefined),
        15_000,
        'the warning for the document that is not JSON',
      );
      const log = alpha.serve.output();
      expect(log).toContain(
        'dogsled: warning: bus host wrong: a document that is not a dogsled snapshot, ignored',
      );
      expect(log).toContain('dogsled: warning: bus host notjson: a document that is not JSON, ignored');
      expect(log).not.toContain('pwned');
      // Each problem once, however many ticks pass.
      expect(log.split('bus host wrong:').length).toBe(2);
      for (const args of [['status', '--json'], ['status']]) {
        const shown = await runCli(args, alpha.box.env);
        expect(shown.stdout).toContain('evil');
        expect(shown.stdout.split('\n').filter((line) => HIDDEN.test(line))).toEqual([]);
      }
      // A key deleted from the bucket is no longer a host.
      await kv.delete('evil');
      await eventually(
        async () => (byId(await status(alpha)).has('evil') ? undefined : true),
        15_000,
        'evil gone',
      );
      for (const key of ['wrong', 'notjson']) await kv.delete(key);
    } finally {
      await nc.close();
    }
  });

  it('a publisher frozen with SIGSTOP goes stale; thawed, it is fresh again', async () => {
    const [alpha, , charlie] = hosts as [Host, Host, Host];
    const knob = { DOGSLED_TEST: '1', DOGSLED_TEST_BUS_STALE_MS: '2000' };
    charlie.serve.kill('SIGSTOP');
    try {
      const frozen = await eventually(
        async () => {
          const seen = byId(await status(alpha, knob)).get('charlie');
          return seen?.unreachable === 'stale' ? seen : undefined;
        },
        15_000,
        'charlie stale',
      );
      expect(frozen).toMatchObject({ reachable: false, service: 'unknown', hostname: expect.any(String) });
      expect(frozen.headroom.eligible).toBe(false);
      expect(frozen.headroom.reason[0]).toBe('unreachable: stale');
    } finally {
      charlie.serve.kill('SIGCONT');
    }
    await eventually(
      async () => (byId(await status(alpha, knob)).get('charlie')?.unreachable === null ? true : undefined),
      15_000,
      'charlie fresh',
    );
  });

  it('the server down: bus peers are `bus down` with their last snapshot; back, they are fresh', async () => {
    const [alpha] = hosts as [Host];
    await nats.stop();
    try {
      const report = await eventually(
        async () => {
          const seen = await status(alpha);
          const peers = seen.hosts.filter((h) => !h.local);
          // host.json says it at the service's next tick.
          const said = seen.hosts.find((h) => h.local)?.errors.includes(`bus ${nats.url}: connection lost`);
          return said && peers.length === 2 && peers.every((h) => h.unreachable === 'bus down')
            ? seen
            : undefined;
        },
        15_000,
        'bus down',
      );
      for (const peer of report.hosts.filter((h) => !h.local)) {
        expect(peer.hostname).not.toBeNull();
        expect(peer.age_ms).toEqual(expect.any(Number));
      }
      const local = report.hosts.find((h) => h.local);
      expect(local?.service).toBe('up');
      expect(local?.errors).toContain(`bus ${nats.url}: connection lost`);
      const text = await runCli(['status'], alpha.box.env);
      expect(text.code).toBe(0);
      expect(text.stdout).toContain('unreachable: bus down');
    } finally {
      await nats.resume();
    }
    for (const host of hosts) {
      const back = await eventually(
        async () => {
          const seen = await status(host);
          const peers = seen.hosts.filter((h) => !h.local);
          const local = seen.hosts.find((h) => h.local);
          return peers.length === 2 &&
            peers.every((h) => h.unreachable === null) &&
            local?.errors.length === 0
            ? seen
            : undefined;
        },
        20_000,
        `${host.id} back on the bus`,
      );
      // Nothing doubled: each host once.
      expect(back.hosts.map((h) => h.id).sort()).toEqual(
        ['local', ...hosts.filter((h) => h !== host).map((h) => h.id)].sort(),
      );
    }
  });
});

describe('fleet credentials', () => {
  const user = createUser();
  const seed = new TextDecoder().decode(user.getSeed());
  const credsText = (seedText: string) =>
    `-----BEGIN NATS USER JWT-----\neyJ0eXAiOiJKV1QiLCJhbGciOiJlZDI1NTE5LW5rZXkifQ.e30.x\n------END NATS USER JWT------\n\n-----BEGIN USER NKEY SEED-----\n${seedText}\n------END USER NKEY SEED------\n`;
  beforeAll(async () => {
    locked = await NatsServer.start(`authorization { users: [ { nkey: ${user.getPublicKey()} } ] }`);
  });
  afterAll(async () => {
    await locked?.stop();
  });

  it('credentials the server refuses are one line naming the bus, and the secret goes nowhere', async () => {
    const stranger = new TextDecoder().decode(createUser().getSeed());
    const box = await sandbox();
    const creds = join(box.home, 'nats.creds');
    await writeFile(creds, credsText(stranger), { mode: 0o600 });
    await writeFile(box.configPath, `[fleet]\nbus = "${locked.url}"\nid = "delta"\ncreds = "~/nats.creds"\n`);
    const host: Host = { id: 'delta', box, serve: startCli(['serve', '--interval', '0.5'], box.env) };
    try {
      const line = `dogsled: warning: bus ${locked.url}: authorization failed`;
      await eventually(
        async () => (host.serve.output().includes(line) ? true : undefined),
        15_000,
        'the refusal',
      );
      // The refusal reaches host.json with the service's next publication (0.5 s here), not with
      // the warning: status shows it then.
      const refused = [`bus ${locked.url}: authorization failed`];
      const local = await eventually(
        async () => {
          const found = (await status(host)).hosts.find((h) => h.local);
          return JSON.stringify(found?.errors) === JSON.stringify(refused) ? found : undefined;
        },
        5_000,
        'the refusal in status',
      );
      expect(local?.errors).toEqual(refused);
      // One line, said once, and nothing else on the service's output but its start.
      const lines = host.serve.output().trim().split('\n');
      expect(lines.filter((l) => l.startsWith('dogsled: warning:'))).toEqual([line]);
      const secret = stranger.slice(4, 40);
      expect(host.serve.output()).not.toContain(secret);
      const cmdline = await readFile(`/proc/${host.serve.pid}/cmdline`, 'utf8');
      expect(cmdline).not.toContain(secret);
      expect(await filesContaining(box.state, secret)).toEqual([]);
    } finally {
      await stopHost(host);
    }
  });

  it('accepted credentials publish the host; a credentials file others may read is refused by name', async () => {
    const box = await sandbox();
    const creds = join(box.home, 'nats.creds');
    await writeFile(creds, credsText(seed), { mode: 0o600 });
    await writeFile(box.configPath, `[fleet]\nbus = "${locked.url}"\nid = "echo"\ncreds = "${creds}"\n`);
    const host: Host = { id: 'echo', box, serve: startCli(['serve', '--interval', '0.5'], box.env) };
    try {
      const nc = await connectTo(locked, {
        authenticator: credsAuthenticator(new TextEncoder().encode(credsText(seed))),
      });
      try {
        // The service's put seen as it passes, not by reading the bucket while the service creates
        // it: nats-server 2.9.10 to 2.9.14 registers a new stream before its store, and a message
        // get in between dereferences the nil store and kills the server (the CI's failure here,
        // the test polling as the service started; upstream b19fe508c, 2.9.15).
        let put: Uint8Array | undefined;
        const sub = nc.subscribe('$KV.dogsled_hosts.echo', {
          callback: (_error, msg) => {
            put ??= msg.data;
          },
        });
        await eventually(
          async () => (put?.length ? true : undefined),
          15_000,
          // Read when the wait gives up: read now, it is empty (the service has just started).
          () => `echo on the bus (its service said: ${host.serve.output()})`,
        );
        sub.unsubscribe();
        // Created by then (the service puts only into a bucket it made): the bucket holds it.
        const kv = await new Kvm(nc).open('dogsled_hosts');
        expect((await kv.get('echo'))?.value.length).toBeGreaterThan(0);
      } finally {
        await nc.close();
      }
      host.serve.kill('SIGTERM');
      await exited(host.serve);
      await chmod(creds, 0o644);
      const again = startCli(['serve', '--interval', '0.5'], box.env);
      host.serve = again;
      const line = `dogsled: warning: config ${box.configPath}: fleet.creds: ${creds}: must be readable by its owner alone (chmod 600), found mode 0644`;
      await eventually(
        async () => (again.output().includes(line) ? true : undefined),
        15_000,
        'the mode refusal',
      );
    } finally {
      await stopHost(host);
    }
  });
});

async function filesContaining(dir: string, text: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    if ((await readFile(path, 'utf8').catch(() => '')).includes(text)) found.push(path);
  }
  return found;
}
