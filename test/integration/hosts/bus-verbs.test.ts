// The host verbs over the fleet bus, with a real nats-server (2.9) configured as the README's sample
// (each host's nkey user may write only its own key, answer only its own verbs, read only its own
// replies) and a small message limit: two services with no [[hosts]] and no SSH, and work placed
// from one on the other (`run --host`, `logs` of an output longer than a message, `stop`, `read`,
// `prune --host`). A service whose user is another host's may not answer the subject of the id it
// claims; a command's credentials the server refuses are one line naming the bus; a host whose
// service is gone is `unreachable: no responder`.

import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { connect, credsAuthenticator } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandBusTransport } from '../../../service/bus/rpc-client.js';
import { DEFAULT_CONFIG } from '../../../service/state/config/config.js';
import {
  type BusHost,
  type BusUser,
  busStatus,
  busUser,
  credsText,
  ROOMY_POLICY,
  readmeAuthorization,
  startBusHost,
  stopBusHost,
  stopBusService,
  untilSeen,
} from '../../helpers/bus-hosts.js';
import { runCli } from '../../helpers/cli.js';
import { NatsServer } from '../../helpers/nats-server.js';
import { waitFor } from '../../helpers/wait.js';

// biome-ignore lint/suspicious/noExplicitAny: JSON documents, asserted field by field
type Json = any;

/** Smaller than one `logs` reply (up to 1 MiB of output, base64), so long replies travel in parts. */
const LIMIT = 64 * 1024;

let nats: NatsServer;
let users: Record<'alpha' | 'bravo', BusUser>;
let alpha: BusHost;
let bravo: BusHost;
const others: BusHost[] = [];

const cli = (args: string[], host: BusHost = alpha) =>
  runCli(args, host.box.env, { timeoutMs: 60_000, cwd: host.box.home });

beforeAll(async () => {
  users = { alpha: busUser('alpha'), bravo: busUser('bravo') };
  nats = await NatsServer.start(`max_payload: ${LIMIT}\n${await readmeAuthorization(Object.values(users))}`);
  alpha = await startBusHost('alpha', nats.url, { user: users.alpha });
  bravo = await startBusHost('bravo', nats.url, { user: users.bravo });
  await untilSeen(alpha, ['bravo'], { eligible: true });
});

afterAll(async () => {
  await Promise.all([alpha, bravo, ...others].filter(Boolean).map(stopBusHost));
  await nats?.stop();
});

describe('host verbs over the bus', () => {
  it('a bus host takes work: run --host runs there, with no SSH anywhere', async () => {
    const report = await busStatus(alpha);
    const seen = report.hosts.find((h: Json) => h.id === 'bravo');
    expect(seen).toMatchObject({ reachable: true, unreachable: null, service: 'up' });
    expect(seen.headroom.eligible).toBe(true);
    expect(seen.headroom.reason.join(' ')).not.toContain('bus peer');
    const ran = await cli(['run', '--host', 'bravo', '--wait', '--', 'sh', '-c', 'echo "ran in $PWD"']);
    expect({ code: ran.code, stderr: ran.stderr }).toEqual({ code: 0, stderr: '' });
    // The caller's home-relative directory, on the host that ran it.
    expect(ran.stdout).toBe(`ran in ${bravo.box.home}\n`);
    // ps --all reads bravo's jobs from its document on the bus, as it next publishes them.
    const jobs = await waitFor('the job ended in ps --all', async () => {
      const all = JSON.parse((await cli(['ps', '--all', '--json'])).stdout).jobs as Json[];
      return all.length > 0 && all.every((j) => j.state === 'ended') ? all : undefined;
    });
    expect(jobs).toEqual([expect.objectContaining({ host: 'bravo', state: 'ended', exit_code: 0 })]);
    // The README's permissions were enough for everything each service does on the bus.
    for (const host of [alpha, bravo]) expect(host.serve.output()).not.toContain('warning');
  });

  it('logs joins an output longer than a bus message; stop, read and prune --host reach the host', async () => {
    const long = await cli([
      'run',
      '--host',
      'bravo',
      '--wait',
      '--',
      'sh',
      '-c',
      "head -c 300000 /dev/zero | tr '\\0' x",
    ]);
    expect(long.code, long.stderr).toBe(0);
    expect(long.stdout).toBe('x'.repeat(300_000));

    const started = await cli(['run', '--host', 'bravo', '--json', '--', 'sleep', '300']);
    expect(started.code, started.stderr).toBe(0);
    const job = JSON.parse(started.stdout).job as string;
    const stopped = await cli(['stop', job]);
    expect({ code: stopped.code, stderr: stopped.stderr }).toEqual({ code: 0, stderr: '' });
    expect(stopped.stdout).toContain(`${job} stopped`);
    const ended = await waitFor('the stopped job ended', async () => {
      const jobs = JSON.parse((await cli(['ps', '--all', '--json'])).stdout).jobs as Json[];
      return jobs.find((j) => j.id === job && j.state === 'ended');
    });
    expect(ended.host).toBe('bravo');

    const read = await cli(['read', job, '--host', 'bravo', '--json']);
    expect(read.code, read.stderr).toBe(0);
    expect(JSON.parse(read.stdout)).toMatchObject({ kind: 'job', host: 'bravo' });
    const prune = await cli(['prune', '--host', 'bravo', '--json']);
    expect(prune.code, prune.stderr).toBe(0);
  });

  it("a host's user may answer only its own verbs, and reads no other host's replies", async () => {
    // A service with bravo's credentials that calls itself charlie.
    const impostor = await startBusHost('charlie', nats.url, { user: users.bravo });
    others.push(impostor);
    const refused = `bus ${nats.url}: may not answer dogsled.rpc.charlie: this host takes no work from the bus`;
    await waitFor('the refusal', () => impostor.serve.output().includes(refused), { timeoutMs: 20_000 });
    // Its key is refused too: nobody sees a charlie.
    await waitFor('its put refused', () => impostor.serve.output().includes('authorization failed'), {
      timeoutMs: 20_000,
    });
    const creds = join(alpha.box.home, 'nats.creds');
    const asAlpha = commandBusTransport({
      fleet: { ...structuredClone(DEFAULT_CONFIG).fleet, bus: [nats.url], id: 'alpha', creds },
    });
    try {
      const target = (bus: string) => ({ host: 'bus', remoteCommand: [], bus });
      await expect(asAlpha.exec(target('charlie'), ['echo'])).rejects.toMatchObject({
        category: 'no responder',
      });
      const echo = await asAlpha.exec(target('bravo'), ['echo', 'hi']);
      expect(echo.ok && echo.value).toMatchObject({ args: ['hi'] });
    } finally {
      await asAlpha.close();
    }
    // Bravo's user, by hand: alpha's subject and alpha's replies are closed to it.
    const nc = await connect({
      servers: nats.url,
      authenticator: credsAuthenticator(new TextEncoder().encode(credsText(users.bravo))),
    });
    try {
      const errors: string[] = [];
      void (async () => {
        for await (const status of nc.status())
          if (status.type === 'error') errors.push(String(status.error));
      })();
      nc.subscribe('dogsled.rpc.alpha');
      nc.subscribe('_INBOX_alpha.>');
      await nc.flush();
      await waitFor('both refused', () => errors.length >= 2);
      expect(errors.join('\n')).toContain('Permissions Violation for Subscription to "dogsled.rpc.alpha"');
      expect(errors.join('\n')).toContain('Permissions Violation for Subscription to "_INBOX_alpha.>"');
    } finally {
      await nc.close();
    }
    expect((await busStatus(alpha)).hosts.map((h: Json) => h.id)).not.toContain('charlie');
  });

  it("a command's credentials the server refuses, or others may read, are one line", async () => {
    const creds = join(alpha.box.home, 'nats.creds');
    // The service connected already; the command reads the file anew.
    await writeFile(creds, credsText(busUser('stranger')), { mode: 0o600 });
    try {
      const refused = await cli(['read', 'j_zzzzzzzz', '--host', 'bravo']);
      expect({ code: refused.code, stdout: refused.stdout, stderr: refused.stderr }).toEqual({
        code: 2,
        stdout: '',
        stderr: `dogsled: read: bus ${nats.url}: authorization failed\n`,
      });
      await chmod(creds, 0o644);
      const open = await cli(['read', 'j_zzzzzzzz', '--host', 'bravo']);
      expect(open.stderr).toBe(
        `dogsled: read: fleet.creds: ${creds}: must be readable by its owner alone (chmod 600), found mode 0644\n`,
      );
    } finally {
      await writeFile(creds, credsText(users.alpha), { mode: 0o600 });
      await chmod(creds, 0o600);
    }
  });

  it("the service admits a queued ticket onto a bus host when it has room, over the service's connection", async () => {
    const strict = 'memory_reserve_bytes = 1000000000000000\n';
    const fleet = (id: string) => `[fleet]\nbus = "${nats.url}"\nid = "${id}"\ncreds = "~/nats.creds"\n`;
    await writeFile(alpha.box.configPath, `${strict}${fleet('alpha')}`);
    await writeFile(bravo.box.configPath, `${strict}${fleet('bravo')}`);
    try {
      await waitFor(
        'bravo full, as alpha sees it',
        async () =>
          (await busStatus(alpha)).hosts.find((h: Json) => h.id === 'bravo')?.headroom.eligible === false,
        { timeoutMs: 20_000 },
      );
      const queued = await cli(['run', '--json', '--', 'sh', '-c', 'echo admitted there']);
      expect(queued.code, queued.stderr).toBe(1);
      const { ticket } = JSON.parse(queued.stdout);
      // Room on bravo: alpha's service reserves and launches there, over the bus.
      await writeFile(bravo.box.configPath, `${ROOMY_POLICY}${fleet('bravo')}`);
      const admitted = await waitFor(
        'the ticket admitted on bravo',
        async () => {
          const { queue } = JSON.parse((await cli(['items', '--json'])).stdout);
          return (queue as Json[]).find((t) => t.id === ticket && t.state === 'admitted');
        },
        { timeoutMs: 30_000 },
      );
      expect(admitted.host).toBe('bravo');
      const job = await waitFor('its job ended', async () => {
        const jobs = JSON.parse((await cli(['ps', '--all', '--json'])).stdout).jobs as Json[];
        return jobs.find((j) => j.id === admitted.job && j.state === 'ended');
      });
      expect(job).toMatchObject({ host: 'bravo', exit_code: 0 });
      const logs = await cli(['logs', job.id]);
      expect(logs.stdout).toBe('admitted there\n');
    } finally {
      await writeFile(alpha.box.configPath, `${ROOMY_POLICY}${fleet('alpha')}`);
      await writeFile(bravo.box.configPath, `${ROOMY_POLICY}${fleet('bravo')}`);
    }
  });

  it('a host whose service is gone is unreachable: no responder, in one line', async () => {
    await stopBusService(bravo);
    const gone = await cli(['read', 'j_zzzzzzzz', '--host', 'bravo']);
    expect({ code: gone.code, stdout: gone.stdout, stderr: gone.stderr }).toEqual({
      code: 2,
      stdout: '',
      stderr: 'dogsled: read: bravo: unreachable: no responder\n',
    });
    // The same from a hot command, whose bus client is a cold file of its own: the job pinned there
    // waits for it, and says why.
    const run = await cli(['run', '--host', 'bravo', '--', 'true']);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 1, stderr: '' });
    expect(run.stdout).toMatch(/^queued as (t_\w+): no host has room \(bravo: unreachable: no responder\);/);
    const ticket = /^queued as (t_\w+)/.exec(run.stdout)?.[1] as string;
    expect((await cli(['cancel', ticket])).code).toBe(0);
  });
});
