// Peer users: a real account per peer host (useradd), with a home under the setup's directory, a
// password field of `*` (a locked `!` account is refused when sshd runs without PAM) and the client's
// key authorised. Names carry the creating process id, so a run killed before its teardown is cleaned
// up by the next one, and runs side by side never share a user.

import { chmod, chown, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { alive, run } from './procs.js';

export interface PeerUser {
  name: string;
  uid: number;
  gid: number;
  home: string;
}

const PREFIX = 'dogsled-p';

export function userName(tag: string): string {
  // useradd allows 32 characters; the pid keeps names apart between test processes.
  return `${PREFIX}${process.pid}-${tag}`.slice(0, 32);
}

export async function createUser(name: string, home: string, authorizedKey: string): Promise<PeerUser> {
  await run(['useradd', '-M', '-d', home, '-s', '/bin/bash', '-p', '*', name]);
  const uid = Number((await run(['id', '-u', name])).trim());
  const gid = Number((await run(['id', '-g', name])).trim());
  const user = { name, uid, gid, home };
  const ssh = join(home, '.ssh');
  await mkdir(ssh, { recursive: true });
  await writeFile(join(ssh, 'authorized_keys'), authorizedKey);
  await chmod(home, 0o700);
  await chmod(ssh, 0o700);
  await chmod(join(ssh, 'authorized_keys'), 0o600);
  for (const path of [home, ssh, join(ssh, 'authorized_keys')]) await chown(path, user.uid, user.gid);
  return user;
}

export async function deleteUser(name: string): Promise<void> {
  // -f: the user may still own a process that is being torn down; the home is removed with the setup.
  await run(['userdel', '-f', name]).catch(() => undefined);
}

/** Users left by setups whose process is gone (a run killed before its teardown). */
export async function removeStaleUsers(): Promise<void> {
  const passwd = await readFile('/etc/passwd', 'utf8');
  for (const line of passwd.split('\n')) {
    const name = line.split(':')[0] ?? '';
    const match = /^dogsled-p(\d+)-/.exec(name);
    if (match && !alive(Number(match[1]))) await deleteUser(name);
  }
}
