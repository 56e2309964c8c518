// What the pool learns from `ssh -G`: the real ssh resolving a private config, then the parse.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSshG, resolveHost } from '../../../service/transport/ssh-config.js';
import { tempDir } from '../../helpers/tree.js';

let dir: string;
let config: string;

beforeAll(async () => {
  dir = await tempDir('dogsled-ssh-config-');
  config = join(dir, 'ssh_config');
  await writeFile(
    config,
    [
      'Host build',
      '  HostName 10.250.7.2',
      '  User builder',
      '  Port 2200',
      '  IdentityFile ~/.ssh/id_%h_%r',
      '  IdentityFile "/keys/with space"',
      '  IdentitiesOnly yes',
      `  UserKnownHostsFile ${dir}/kh1 ${dir}/kh2`,
      '  HostKeyAlias build-box',
      'Host jumped',
      '  ProxyJump build',
      'Host *',
      '  GlobalKnownHostsFile /dev/null',
      '',
    ].join('\n'),
  );
});

afterAll(async () => {
  const { rm } = await import('node:fs/promises');
  await rm(dir, { recursive: true, force: true });
});

describe('resolveHost', () => {
  it('takes host, port, user, identities and known_hosts files from the config, tokens expanded', async () => {
    const resolved = await resolveHost('build', { extraArgs: ['-F', config] });
    expect(resolved).toMatchObject({
      alias: 'build',
      hostname: '10.250.7.2',
      port: 2200,
      user: 'builder',
      identitiesOnly: true,
      userKnownHostsFiles: [`${dir}/kh1`, `${dir}/kh2`],
      globalKnownHostsFiles: ['/dev/null'],
      hostKeyAlias: 'build-box',
      proxy: undefined,
    });
    expect(resolved.identityFiles[0]).toMatch(/\/\.ssh\/id_10\.250\.7\.2_builder$/);
    expect(resolved.identityFiles[1]).toBe('/keys/with space');
  });

  it('notices a route through ProxyJump, which the pool leaves to OpenSSH', async () => {
    expect((await resolveHost('jumped', { extraArgs: ['-F', config] })).proxy).toBe('build');
  });

  it('refuses a host name that ssh would read as an option, before running anything', async () => {
    await expect(resolveHost('-oProxyCommand=touch /tmp/x', { extraArgs: ['-F', config] })).rejects.toThrow(
      /not a host name ssh can take/,
    );
    await expect(resolveHost('a\nb')).rejects.toThrow(/not a host name/);
  });

  it('says in one line when ssh cannot read the config', async () => {
    const broken = join(dir, 'broken');
    await writeFile(broken, 'Host x\n  NoSuchOption yes\n');
    await expect(resolveHost('x', { extraArgs: ['-F', broken] })).rejects.toThrow(
      /^peer x: ssh -G cannot resolve it: /,
    );
  });
});

describe('parseSshG', () => {
  const local = { home: '/home/me', localUser: 'me', uid: 1000, localHost: 'here' };

  it('falls back to the alias, port 22 and the local user when ssh prints none', () => {
    expect(parseSshG('', 'peer', local)).toMatchObject({ hostname: 'peer', port: 22, user: 'me' });
  });

  it('expands ~, %d, %u, %l, %n, %p and %% and leaves unknown tokens alone', () => {
    const parsed = parseSshG(
      'hostname h\nport 22\nuser u\nidentityfile ~/k\nidentityfile %d/%u@%l\nidentityfile %n-%p-%%-%Z\nidentityfile none\n',
      'alias',
      local,
    );
    expect(parsed.identityFiles).toEqual(['/home/me/k', '/home/me/me@here', 'alias-22-%-%Z']);
  });
});
