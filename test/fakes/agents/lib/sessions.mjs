// Where each harness keeps its session transcript, and which session a launch opens or resumes.
//   Claude Code  ~/.claude/projects/<cwd, every non-alphanumeric char as "-">/<session-id>.jsonl
//   Codex        ~/.codex/sessions/YYYY/MM/DD/rollout-YYYY-MM-DDThh-mm-ss-<uuid>.jsonl (local time)
//   Pi           ~/.pi/agent/sessions/--<cwd without leading /, "/" as "-">--/<iso, ":." as "-">_<uuid>.jsonl

import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

export function claudeSlug(cwd) {
  return cwd.replace(/[^a-zA-Z0-9]/g, '-');
}

export function piSlug(cwd) {
  return `--${cwd.replace(/^[/\\]/, '').replace(/[/\\:]/g, '-')}--`;
}

/** @returns {{id: string, path: string|null, source: 'startup'|'resume'}} */
export function openSession(kind, { home, cwd, launch, now }) {
  if (kind === 'claude') return claudeSession(home, cwd, launch);
  if (kind === 'codex') return codexSession(home, launch, now);
  return piSession(home, cwd, launch, now);
}

function claudeSession(home, cwd, launch) {
  const dir = join(home, '.claude', 'projects', claudeSlug(cwd));
  let id = launch.resumeId;
  if (!id && launch.continueLast) id = newestJsonl(dir)?.replace(/\.jsonl$/, '') ?? null;
  if (id) return { id, path: join(dir, `${id}.jsonl`), source: 'resume' };
  id = launch.sessionId ?? randomUUID();
  return { id, path: join(dir, `${id}.jsonl`), source: 'startup' };
}

function codexSession(home, launch, now) {
  const root = join(home, '.codex', 'sessions');
  if (launch.subcommand === 'resume' && launch.resumeId) {
    const found = findRollout(root, launch.resumeId);
    if (found) return { id: launch.resumeId, path: found, source: 'resume' };
  }
  const id = launch.resumeId ?? randomUUID();
  const d = new Date(now);
  const pad = (n) => String(n).padStart(2, '0');
  const [y, m, day] = [String(d.getFullYear()), pad(d.getMonth() + 1), pad(d.getDate())];
  const stamp = `${y}-${m}-${day}T${pad(d.getHours())}-${pad(d.getMinutes())}-${pad(d.getSeconds())}`;
  return { id, path: join(root, y, m, day, `rollout-${stamp}-${id}.jsonl`), source: 'startup' };
}

function piSession(home, cwd, launch, now) {
  const dir = launch.sessionDir ?? join(home, '.pi', 'agent', 'sessions', piSlug(cwd));
  if (launch.noSession) return { id: randomUUID(), path: null, source: 'startup' };
  let file = launch.sessionFile;
  if (!file && launch.continueLast) {
    const newest = newestJsonl(dir);
    if (newest) file = join(dir, newest);
  }
  if (file && existsSync(file)) {
    const header = JSON.parse(readFileSync(file, 'utf8').split('\n')[0] || '{}');
    return { id: header.id ?? randomUUID(), path: file, source: 'resume' };
  }
  const id = randomUUID();
  const stamp = new Date(now).toISOString().replace(/[:.]/g, '-');
  return { id, path: file ?? join(dir, `${stamp}_${id}.jsonl`), source: 'startup' };
}

function newestJsonl(dir) {
  let names;
  try {
    names = readdirSync(dir).filter((name) => name.endsWith('.jsonl'));
  } catch {
    return null;
  }
  names.sort((a, b) => statSync(join(dir, b)).mtimeMs - statSync(join(dir, a)).mtimeMs);
  return names[0] ?? null;
}

function findRollout(root, id) {
  const list = (dir) => {
    try {
      return readdirSync(dir).sort().reverse();
    } catch {
      return [];
    }
  };
  for (const y of list(root)) {
    for (const m of list(join(root, y))) {
      for (const d of list(join(root, y, m))) {
        const name = list(join(root, y, m, d)).find(
          (n) => n.startsWith('rollout-') && n.endsWith(`-${id}.jsonl`),
        );
        if (name) return join(root, y, m, d, name);
      }
    }
  }
  return null;
}
