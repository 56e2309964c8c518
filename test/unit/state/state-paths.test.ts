import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { configPathFrom, stateDirFrom, statePaths } from '../../../service/state/paths.js';

const HOME = '/home/ada';

describe('stateDirFrom', () => {
  test('prefers $DOGSLED_STATE', () => {
    expect(stateDirFrom({ DOGSLED_STATE: '/tmp/s', XDG_STATE_HOME: '/x' }, HOME)).toBe('/tmp/s');
  });

  test('falls back to $XDG_STATE_HOME/dogsled', () => {
    expect(stateDirFrom({ XDG_STATE_HOME: '/x/state' }, HOME)).toBe('/x/state/dogsled');
  });

  test('falls back to ~/.local/state/dogsled, ignoring empty and relative variables', () => {
    expect(stateDirFrom({}, HOME)).toBe('/home/ada/.local/state/dogsled');
    expect(stateDirFrom({ DOGSLED_STATE: '', XDG_STATE_HOME: '' }, HOME)).toBe(
      '/home/ada/.local/state/dogsled',
    );
    expect(stateDirFrom({ XDG_STATE_HOME: 'relative/state' }, HOME)).toBe('/home/ada/.local/state/dogsled');
  });
});

describe('statePaths', () => {
  test('names every file of the state dir', () => {
    expect(statePaths('/s')).toEqual({
      dir: '/s',
      host: '/s/host.json',
      placements: '/s/placements.json',
      samples: '/s/samples.jsonl',
      serviceLock: '/s/service',
      serviceHolder: '/s/service.json',
      serviceAcquire: '/s/service-acquire',
      jobs: '/s/jobs',
      tickets: '/s/tickets',
      launches: '/s/launches',
      items: '/s/items.json',
      queue: '/s/queue.json',
      repositories: '/s/repositories.json',
      worktrees: '/s/worktrees.json',
      paneWatch: '/s/pane-watch.json',
      done: '/s/done.json',
      branches: '/s/branches.json',
      inbox: '/s/inbox',
      gate: '/s/gate.json',
      history: '/s/history.jsonl',
      notices: '/s/notices.json',
      paneTerminals: '/s/terminals.json',
      boards: '/s/boards',
      boardSeen: '/s/board-seen.json',
      todoLines: '/s/todo-lines',
      todoSections: '/s/todo-sections.json',
      quota: '/s/quota.json',
      quotaCollect: '/s/quota-collect.json',
      quotaCollectLock: '/s/quota-collect',
      peers: '/s/peers',
      machineList: '/s/machine-list.json',
      watchdog: '/s/watchdog.json',
      parents: '/s/parents.json',
      outbox: '/s/outbox.json',
      identity: '/s/identity.json',
      sweepRequest: '/s/sweep-request.json',
      sweepSock: '/s/sweep.sock',
      supervisorSock: '/s/supervisor.sock',
      peerReadSock: '/s/peer-read.sock',
      sweep: '/s/sweep.json',
      sweeps: '/s/sweeps.jsonl',
    });
  });
});

describe('statePaths of any dir', () => {
  // statePaths normalizes the dir once and appends each name: the strings path.join gives, for
  // every shape a DOGSLED_STATE or XDG_STATE_HOME can take (relative, dotted, doubled slashes, a
  // trailing slash, the root, empty).
  const DIRS = [
    '/s',
    '/s/',
    '//s//state//',
    '/',
    '//',
    '/a/./b/../c',
    '/a/b/..',
    '/a/b/../',
    'state',
    'state/',
    './state',
    '.',
    './',
    '',
    '..',
    '../',
    'a/..',
    'a/../',
    '../../x/./y/',
    '/home/ada/.local/state/dogsled',
    '/tmp/a dir with spaces/ünïcödé/state',
    '/a/.../b',
    '/a/..b/',
  ];
  test('are the paths join gives', () => {
    const names = Object.entries(statePaths('/s'))
      .filter(([field]) => field !== 'dir')
      .map(([field, path]) => [field, path.slice('/s/'.length)] as const);
    expect(names.length).toBeGreaterThanOrEqual(40);
    for (const dir of DIRS) {
      const paths = statePaths(dir) as unknown as Record<string, string>;
      expect({ dir, field: 'dir', path: paths.dir }).toEqual({ dir, field: 'dir', path: dir });
      for (const [field, name] of names) {
        expect({ dir, field, path: paths[field] }).toEqual({ dir, field, path: join(dir, name) });
      }
    }
  });
});

describe('configPathFrom', () => {
  test('--config wins and is explicit', () => {
    expect(configPathFrom('/c.toml', { DOGSLED_CONFIG: '/e.toml' }, HOME)).toEqual({
      path: '/c.toml',
      explicit: true,
    });
  });

  test('$DOGSLED_CONFIG is explicit too', () => {
    expect(configPathFrom(undefined, { DOGSLED_CONFIG: '/e.toml' }, HOME)).toEqual({
      path: '/e.toml',
      explicit: true,
    });
  });

  test('the default path under ~/.config is not explicit', () => {
    expect(configPathFrom(undefined, {}, HOME)).toEqual({
      path: '/home/ada/.config/dogsled/config.toml',
      explicit: false,
    });
  });
});
