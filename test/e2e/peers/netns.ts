// A separate host on this machine: a network namespace joined to the test's own by a veth pair,
// 10.250.N.1 outside and 10.250.N.2 inside. N is claimed with an O_EXCL file holding our pid, so test
// files running side by side never share a subnet; a claim whose pid is gone is taken over. Only
// addresses made here are ever used.

import { mkdir, open, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { alive, run } from './procs.js';

export interface Netns {
  name: string;
  /** The peer's address, inside the namespace. */
  address: string;
  /** This side's address on the same link. */
  gateway: string;
  destroy: () => Promise<void>;
}

const CLAIMS = '/run/dogsled-test-netns';

export async function createNetns(): Promise<Netns> {
  const n = await claimSubnet();
  const name = `dogsled-${process.pid}-${n}`;
  const outside = `dsv${n}o`;
  const inside = `dsv${n}i`;
  // Left by a run that died before its teardown with the same claim: its link would clash.
  await run(['ip', 'link', 'del', outside]).catch(() => undefined);
  const destroy = async (): Promise<void> => {
    await run(['ip', 'netns', 'del', name]).catch(() => undefined);
    await run(['ip', 'link', 'del', outside]).catch(() => undefined);
    await rm(join(CLAIMS, String(n)), { force: true });
  };
  try {
    await run(['ip', 'netns', 'add', name]);
    const outsideBatch = [
      `link add ${outside} type veth peer name ${inside}`,
      `link set ${inside} netns ${name}`,
      `addr add 10.250.${n}.1/24 dev ${outside}`,
      `link set ${outside} up`,
    ];
    const insideBatch = [
      `addr add 10.250.${n}.2/24 dev ${inside}`,
      `link set ${inside} up`,
      'link set lo up',
    ];
    await run(['ip', '-batch', '-'], { input: `${outsideBatch.join('\n')}\n` });
    await run(['ip', '-n', name, '-batch', '-'], { input: `${insideBatch.join('\n')}\n` });
  } catch (error) {
    await destroy();
    throw error;
  }
  return { name, address: `10.250.${n}.2`, gateway: `10.250.${n}.1`, destroy };
}

async function claimSubnet(): Promise<number> {
  await mkdir(CLAIMS, { recursive: true });
  for (let n = 1; n <= 250; n++) {
    const path = join(CLAIMS, String(n));
    if (await take(path)) return n;
    const holder = Number((await readFile(path, 'utf8').catch(() => '')).trim());
    if (Number.isInteger(holder) && holder > 0 && !alive(holder)) {
      await rm(path, { force: true });
      if (await take(path)) return n;
    }
  }
  throw new Error('no free 10.250.N.0/24 subnet for a test host');
}

async function take(path: string): Promise<boolean> {
  try {
    const handle = await open(path, 'wx');
    await handle.writeFile(String(process.pid));
    await handle.close();
    return true;
  } catch {
    return false;
  }
}
