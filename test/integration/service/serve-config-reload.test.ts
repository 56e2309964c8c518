// `serve` follows config.toml and the profiles without a restart (chokidar): a changed policy is
// what the service judges its host by at once, a file that no longer loads keeps the last good
// policy and says why in host.json's errors (which `status` shows), and a broken profile is said
// there too until it is fixed.

import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, type Sandbox } from '../../helpers/cli.js';
import { sandboxPerTest } from '../../helpers/serve-sandbox.js';
import { waitFor } from '../../helpers/wait.js';
import { roomFor5, startServe, untilEligible } from '../jobs/job-queue-fixtures.js';

let box: Sandbox;
const served = sandboxPerTest(
  (made) => {
    box = made;
  },
  { DOGSLED_TEST: '1' },
);
const { running } = served;

// biome-ignore lint/suspicious/noExplicitAny: host.json as written, asserted field by field
async function snapshot(): Promise<any> {
  return JSON.parse(await readFile(join(box.state, 'host.json'), 'utf8'));
}

/** Replaced whole, as an editor or a dotfiles install writes it. */
async function writeConfig(text: string): Promise<void> {
  const temp = `${box.configPath}.tmp`;
  await writeFile(temp, text);
  await rename(temp, box.configPath);
}

const ROOMY = 'reservation_load = 1.5\nreservation_ttl_ms = 600000\nmemory_reserve_bytes = 0\n';

describe('serve follows config.toml and the profiles', () => {
  it('a changed policy applies at once; a broken file keeps the last good one and says why; a fix clears it', async () => {
    const host = await roomFor5(box, 600_000, { facts: false });
    served.stopTicker = host.stop;
    startServe({ ...box.env, ...host.env }, running);
    await untilEligible(box);

    // No disk can keep 100% free: the service refuses its host once it has the new policy.
    await writeConfig(`${ROOMY}disk_free_min_percent = 100\n`);
    const refused = await waitFor(
      'the new policy in host.json',
      async () => {
        const { headroom } = await snapshot();
        return headroom.eligible === false ? headroom : undefined;
      },
      { timeoutMs: 30_000 },
    );
    expect(refused.reason.join(' ')).toMatch(/disk/);

    // A typo: the service keeps judging by the last policy that loaded, and says why.
    await writeConfig(`${ROOMY}disk_free_min_percent = 0\nfree_cores_min = 2\n`);
    const errors = await waitFor(
      'the broken file in host.json',
      async () => {
        const { errors } = await snapshot();
        return errors.length > 0 ? (errors as string[]) : undefined;
      },
      { timeoutMs: 30_000 },
    );
    expect(errors).toEqual([
      `config ${box.configPath}: unknown key "free_cores_min"; the service keeps the last policy that loaded`,
    ]);
    expect((await snapshot()).headroom.eligible).toBe(false);

    // A directory in its place: the same, with its own reason.
    await rm(box.configPath);
    await mkdir(box.configPath);
    await waitFor(
      'the directory in host.json',
      async () => {
        const [error] = (await snapshot()).errors as string[];
        return error !== undefined && !error.includes('free_cores_min') ? error : undefined;
      },
      { timeoutMs: 30_000 },
    ).then((error) =>
      expect(error).toMatch(/^config \S+: .*; the service keeps the last policy that loaded$/),
    );
    expect((await snapshot()).headroom.eligible).toBe(false);
    await rm(box.configPath, { recursive: true });

    // Fixed: the policy is the file's again and the error is gone.
    await writeConfig(`${ROOMY}disk_free_min_percent = 0\n`);
    await untilEligible(box);
    await waitFor('no error', async () => ((await snapshot()).errors.length === 0 ? true : undefined), {
      timeoutMs: 30_000,
    });
  });

  it('takes up a config.toml whose directory was made after it started', async () => {
    // A new user starts the service first and writes the policy afterwards: no watch can begin on
    // a directory that is not there, so the service's look at the files' stats finds it.
    const host = await roomFor5(box, 600_000, { facts: false });
    served.stopTicker = host.stop;
    await rm(dirname(box.configPath), { recursive: true });
    startServe({ ...box.env, ...host.env }, running);
    await waitFor('a first snapshot', async () => (await snapshot()).headroom, { timeoutMs: 30_000 });
    await mkdir(dirname(box.configPath), { recursive: true });
    await writeConfig(`${ROOMY}disk_free_min_percent = 100\n`);
    const refused = await waitFor(
      'the new policy in host.json',
      async () => {
        const { headroom } = await snapshot();
        return headroom.reason.some((r: string) => r.endsWith('needs 100%')) ? headroom : undefined;
      },
      { timeoutMs: 30_000 },
    );
    expect(refused.eligible).toBe(false);
  });

  it('a broken profile is said in status until it is fixed', async () => {
    const host = await roomFor5(box, 600_000, { facts: false });
    served.stopTicker = host.stop;
    startServe({ ...box.env, ...host.env }, running);
    await untilEligible(box);
    const dir = join(box.home, '.config', 'dogsled', 'profiles', 'general');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'profile.json'), '{"model": ');
    await waitFor(
      'the broken profile in host.json',
      async () =>
        (await snapshot()).errors.some((e: string) => e.startsWith('profile general: broken: '))
          ? true
          : undefined,
      { timeoutMs: 30_000 },
    );
    const status = await runCli(['status'], box.env);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/error +profile general: broken: /);
    await writeFile(join(dir, 'profile.json'), '{"model": "alias/sol"}');
    await waitFor(
      'the fixed profile',
      async () => ((await snapshot()).errors.length === 0 ? true : undefined),
      { timeoutMs: 30_000 },
    );
    await rm(dir, { recursive: true });
  });
});
