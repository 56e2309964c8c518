import { appendFile, chmod, mkdir, rename, rm, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { transcriptCache } from '../../../service/probe/transcripts/cache.js';
import { discoverTranscript, discoverTranscriptFile } from '../../../service/probe/transcripts/discover.js';
import { nodeTranscriptFs, type TranscriptFs } from '../../../service/probe/transcripts/fs.js';
import { tempDir, writeTree } from '../../helpers/tree.js';

const ID = '0a6afc57-2f31-4cb4-8ff0-01247f50c64c';
const OTHER = '8a6dc86d-84bb-4278-98ef-9065d9332d1b';
let home: string;

beforeEach(async () => {
  home = await tempDir('dogsled-transcripts-');
});

afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

const claude = (session: string) =>
  discoverTranscript({ agent: 'claude', session: { kind: 'id', value: session }, home });
const codex = (session: string) =>
  discoverTranscript({ agent: 'codex', session: { kind: 'id', value: session }, home });

describe('Claude session ids', () => {
  it('resolve to the one project file with that id, with its modification time in ms', async () => {
    await writeTree(home, {
      [`.claude/projects/-work-a/${ID}.jsonl`]: '{}\n',
      [`.claude/projects/-work-b/${OTHER}.jsonl`]: '{}\n',
      '.claude/projects/stray-file': 'not a project',
    });
    const path = join(home, '.claude/projects/-work-a', `${ID}.jsonl`);
    await utimes(path, 1_700_000_000, 1_700_000_000.5);
    expect(await claude(ID)).toEqual({ path, modified_ms: 1_700_000_000_500 });
  });

  it('are ambiguous when two project directories hold the same id', async () => {
    await writeTree(home, {
      [`.claude/projects/-work-a/${ID}.jsonl`]: '{}\n',
      [`.claude/projects/-work-b/${ID}.jsonl`]: '{}\n',
    });
    expect(await claude(ID)).toEqual({ path: null, reason: 'ambiguous' });
  });

  it('are absent when no project holds the id, however recent its other sessions, or without ~/.claude', async () => {
    expect(await claude(ID)).toEqual({ path: null, reason: 'absent' });
    await writeTree(home, { [`.claude/projects/-work-a/${OTHER}.jsonl`]: '{}\n' });
    expect(await claude(ID)).toEqual({ path: null, reason: 'absent' });
  });

  it('refuse ids that could name a path outside the session directory', async () => {
    await writeTree(home, { 'secret.jsonl': '{}\n' });
    for (const value of ['../../secret', 'a/b', '', '.hidden']) {
      expect(await claude(value)).toEqual({ path: null, reason: 'no_session' });
    }
  });
});

describe('Codex session ids', () => {
  it('resolve through nested year, month and day directories', async () => {
    await writeTree(home, {
      [`.codex/sessions/2025/12/31/rollout-2025-12-31T23-59-01-${OTHER}.jsonl`]: '{}\n',
      [`.codex/sessions/2026/01/02/rollout-2026-01-02T08-00-00-${ID}.jsonl`]: '{}\n',
      '.codex/sessions/2026/01/02/notes.txt': '',
    });
    const found = await codex(ID);
    expect(found.path).toBe(
      join(home, '.codex/sessions/2026/01/02', `rollout-2026-01-02T08-00-00-${ID}.jsonl`),
    );
  });

  it('ignore directories that are not dates and files that are not rollouts', async () => {
    await writeTree(home, {
      [`.codex/sessions/archive/2026/01/02/rollout-2026-01-02T08-00-00-${ID}.jsonl`]: '{}\n',
      [`.codex/sessions/2026/1/2/rollout-2026-01-02T08-00-00-${ID}.jsonl`]: '{}\n',
      [`.codex/sessions/2026/01/02/${ID}.jsonl`]: '{}\n',
    });
    expect(await codex(ID)).toEqual({ path: null, reason: 'absent' });
  });

  it('are ambiguous when the id appears in two rollouts', async () => {
    await writeTree(home, {
      [`.codex/sessions/2026/01/02/rollout-2026-01-02T08-00-00-${ID}.jsonl`]: '{}\n',
      [`.codex/sessions/2026/02/03/rollout-2026-02-03T08-00-00-${ID}.jsonl`]: '{}\n',
    });
    expect(await codex(ID)).toEqual({ path: null, reason: 'ambiguous' });
  });
});

describe('path sessions', () => {
  it('name the transcript directly, as Pi reports it', async () => {
    const path = join(home, '.pi/agent/sessions/--work--/2026-01-02T08-00-00-000Z_x.jsonl');
    await writeTree(home, { '.pi/agent/sessions/--work--/2026-01-02T08-00-00-000Z_x.jsonl': '{}\n' });
    const found = await discoverTranscript({ agent: 'pi', session: { kind: 'path', value: path }, home });
    expect(found.path).toBe(path);
  });

  it('are absent when the file is gone and unreadable when it is a directory', async () => {
    const session = (value: string) =>
      discoverTranscript({ agent: 'pi', session: { kind: 'path', value }, home });
    expect(await session(join(home, 'gone.jsonl'))).toEqual({ path: null, reason: 'absent' });
    expect(await session(home)).toEqual({ path: null, reason: 'unreadable' });
    expect(await session('relative.jsonl')).toEqual({ path: null, reason: 'no_session' });
  });

  it('are unreadable when the file cannot be opened', async () => {
    // Tests run as root, where chmod 000 still reads: a reader that refuses stands in for it.
    const path = join(home, 'locked.jsonl');
    await writeFile(path, '{}\n');
    const refusing: TranscriptFs = {
      ...nodeTranscriptFs,
      read: async () => {
        throw Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
      },
    };
    const found = await discoverTranscript(
      { agent: 'pi', session: { kind: 'path', value: path }, home },
      { fs: refusing },
    );
    expect(found).toEqual({ path: null, reason: 'unreadable' });
  });
});

describe('sessions that cannot be resolved', () => {
  it('say no_session without a reference, for unknown kinds or for ids of other harnesses', async () => {
    expect(await discoverTranscript({ agent: 'claude', home })).toEqual({ path: null, reason: 'no_session' });
    expect(await discoverTranscript({ agent: 'pi', session: { kind: 'id', value: ID }, home })).toEqual({
      path: null,
      reason: 'no_session',
    });
    expect(await discoverTranscript({ agent: 'claude', session: { kind: 'name', value: ID }, home })).toEqual(
      {
        path: null,
        reason: 'no_session',
      },
    );
  });

  it('say unreadable when the session directory itself cannot be listed', async () => {
    const refusing: TranscriptFs = {
      ...nodeTranscriptFs,
      stat: async () => {
        throw Object.assign(new Error('EACCES'), { code: 'EACCES' });
      },
    };
    const found = await discoverTranscript(
      { agent: 'claude', session: { kind: 'id', value: ID }, home },
      { fs: refusing },
    );
    expect(found).toEqual({ path: null, reason: 'unreadable' });
  });
});

describe('the shared cache', () => {
  it('serves lookups from one walk until it is older than maxAgeMs', async () => {
    let listed = 0;
    const counting: TranscriptFs = {
      ...nodeTranscriptFs,
      readdir: async (dir) => {
        listed++;
        return nodeTranscriptFs.readdir(dir);
      },
    };
    await writeTree(home, { [`.claude/projects/-w/${ID}.jsonl`]: '{}\n' });
    const cache = transcriptCache({ maxAgeMs: 1_000 });
    const at = (now: number, id = ID) =>
      discoverTranscript(
        { agent: 'claude', session: { kind: 'id', value: id }, home },
        { fs: counting, cache, now: () => now },
      );
    expect((await at(0)).path).not.toBeNull();
    const afterFirst = listed;
    expect((await at(500)).path).not.toBeNull();
    expect((await at(600, OTHER)).path).toBeNull();
    expect(listed).toBe(afterFirst);

    // A new session appears: seen once the index is rebuilt, re-listing only the changed directory.
    await mkdir(join(home, '.claude/projects/-v'), { recursive: true });
    await writeFile(join(home, '.claude/projects/-v', `${OTHER}.jsonl`), '{}\n');
    expect((await at(2_000, OTHER)).path).toBe(join(home, '.claude/projects/-v', `${OTHER}.jsonl`));
    expect(listed).toBe(afterFirst + 2);
  });

  it('drops an index that pointed at a deleted file', async () => {
    await writeTree(home, { [`.claude/projects/-w/${ID}.jsonl`]: '{}\n' });
    const cache = transcriptCache({ maxAgeMs: 60_000 });
    const at = (now: number) =>
      discoverTranscript(
        { agent: 'claude', session: { kind: 'id', value: ID }, home },
        { cache, now: () => now },
      );
    expect((await at(0)).path).not.toBeNull();
    await rm(join(home, '.claude/projects/-w', `${ID}.jsonl`));
    await writeTree(home, { [`.claude/projects/-x/${ID}.jsonl`]: '{}\n' });
    expect(await at(1)).toEqual({ path: null, reason: 'absent' });
    expect((await at(2)).path).toBe(join(home, '.claude/projects/-x', `${ID}.jsonl`));
  });
});

describe('a quiet transcript', () => {
  /** The node fs, counting its calls by kind. */
  function counting() {
    const calls = { stat: 0, read: 0 };
    const fs: TranscriptFs = {
      ...nodeTranscriptFs,
      stat: async (path) => {
        calls.stat++;
        return nodeTranscriptFs.stat(path);
      },
      read: async (path, position, length) => {
        calls.read++;
        return nodeTranscriptFs.read(path, position, length);
      },
    };
    return { fs, calls };
  }

  it('costs one stat once opened: it is opened again only when its inode, size, times or mode change', async () => {
    const path = join(home, 'pi.jsonl');
    await writeFile(path, '{}\n');
    const { fs, calls } = counting();
    const cache = transcriptCache();
    const find = () =>
      discoverTranscriptFile({ agent: 'pi', session: { kind: 'path', value: path }, home }, { fs, cache });
    const first = await find();
    expect(first).toMatchObject({ path, file: { isFile: true, size: 3 } });
    expect(calls).toEqual({ stat: 1, read: 1 });
    await find();
    await find();
    expect(calls).toEqual({ stat: 3, read: 1 });

    // Each change of identity proves the file readable again, once.
    await appendFile(path, '{}\n');
    await find();
    await find();
    expect(calls).toEqual({ stat: 5, read: 2 });
    await chmod(path, 0o600);
    await find();
    expect(calls.read).toBe(3);
    await writeFile(join(home, 'next.jsonl'), '{}\n{}\n');
    await rename(join(home, 'next.jsonl'), path);
    await find();
    await find();
    expect(calls).toEqual({ stat: 8, read: 4 });
  });

  it('is opened every time without a cache, or when the file system gives no inode', async () => {
    const path = join(home, 'pi.jsonl');
    await writeFile(path, '{}\n');
    const { fs, calls } = counting();
    const session = { agent: 'pi', session: { kind: 'path', value: path }, home };
    await discoverTranscriptFile(session, { fs });
    await discoverTranscriptFile(session, { fs });
    expect(calls.read).toBe(2);
    const noInode: TranscriptFs = {
      ...fs,
      stat: async (p) => {
        const facts = await fs.stat(p);
        return facts && { ...facts, ino: undefined, ctimeMs: undefined };
      },
    };
    const cache = transcriptCache();
    await discoverTranscriptFile(session, { fs: noInode, cache });
    await discoverTranscriptFile(session, { fs: noInode, cache });
    expect(calls.read).toBe(4);
  });

  it('that becomes unreadable says so at once', async () => {
    // Tests run as root: a reader that refuses stands in for the chmod that changes its identity.
    const path = join(home, 'pi.jsonl');
    await writeFile(path, '{}\n');
    const cache = transcriptCache();
    const session = { agent: 'pi', session: { kind: 'path', value: path }, home };
    expect((await discoverTranscriptFile(session, { cache })).path).toBe(path);
    await chmod(path, 0o000);
    const refusing: TranscriptFs = {
      ...nodeTranscriptFs,
      read: async () => {
        throw Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
      },
    };
    expect(await discoverTranscriptFile(session, { fs: refusing, cache })).toEqual({
      path: null,
      reason: 'unreadable',
    });
  });
});
