// `dogsled doctor` for people: one section per kind of entry, each row a verdict (remove, keep,
// hold…) and a name, with the reason on an indented line; within 80 columns. Paths and names come
// from the filesystem and Git, so terminal escapes are stripped before anything is shown.

import type { DoctorReport, PaneEntry, WorktreeEntry } from '../../service/actions/doctor-action.js';
import { formatBytes } from '../../service/core/common/units.js';
import type { InstallFinding } from '../../service/core/install/install-findings.js';
import { plainLine } from '../../service/core/text/clean.js';
import type { Paint } from './color.js';

export const WIDTH = 80;
const MARK = 8;

/**
 * `text` (escapes stripped) broken at spaces into lines of at most `width` columns, each after
 * `indent`; a single word longer than that keeps its own line whole rather than losing characters.
 */
export function wrap(text: string, indent: string, width = WIDTH): string[] {
  const room = Math.max(20, width - indent.length);
  const lines: string[] = [];
  let line = '';
  for (const word of plainLine(text).split(' ')) {
    if (line !== '' && line.length + 1 + word.length > room) {
      lines.push(indent + line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  if (line !== '' || lines.length === 0) lines.push(indent + line);
  return lines;
}

/** A path relative to `base` when it lies below it. */
export function shortPath(path: string, base: string): string {
  return path.startsWith(`${base}/`) ? path.slice(base.length + 1) : path;
}

/** ` (branch)`, ` (detached <sha>)`, or nothing when neither is known (a record whose path is gone). */
export function checkedOut(branch: string | null, head: string | null): string {
  if (branch) return ` (${branch})`;
  return head ? ` (detached ${head.slice(0, 10)})` : '';
}

export function verdictRow(mark: string, name: string, reason: string, paint: Paint): string[] {
  const colour = mark === 'remove' ? paint.green : mark === 'keep' ? (t: string) => t : paint.yellow;
  const [first = '', ...rest] = wrap(name, ' '.repeat(2 + MARK));
  const head = [`  ${mark.padEnd(MARK)}${first.trimStart()}`, ...rest].map(colour);
  return [...head, ...wrap(reason, ' '.repeat(2 + MARK)).map(paint.dim)];
}

function worktreeMark(entry: WorktreeEntry): string {
  if (entry.state === 'removable') return 'remove';
  if (entry.state === 'stale') return entry.removable ? 'forget' : 'stale';
  if (entry.state === 'unlinked') return 'hold';
  if (entry.state === 'landed_dirty') return 'dirty';
  return 'keep';
}

/** Panes that leave with their workspace or a worktree removal are marked `with`. */
function paneMark(entry: PaneEntry): string {
  if (entry.state === 'removable') return 'remove';
  if (entry.state === 'kept') return 'keep';
  return 'with';
}

const inDir = (cwd: string | null): string => (cwd === null ? '' : ` in ${cwd}`);

export function renderDoctor(report: DoctorReport, paint: Paint): string[] {
  const lines: string[] = [];
  const section = (title: string, rows: string[]): void => {
    if (rows.length === 0) return;
    if (lines.length > 0) lines.push('');
    lines.push(paint.bold(title), ...rows);
  };

  section('install', installRows(report.install ?? [], paint));
  section(
    'repositories',
    report.repositories.flatMap((repo) => {
      const state = repo.state === 'ok' ? `default branch ${repo.default_branch ?? 'unknown'}` : repo.reason;
      const mark = repo.removable ? 'forget' : repo.state === 'ok' ? 'ok' : repo.state.replaceAll('_', ' ');
      const rows = verdictRow(mark, repo.path, `${state} (${repo.sources.join(', ')})`, paint);
      for (const warning of repo.warnings) {
        rows.push(...wrap(`warning: ${warning}`, ' '.repeat(2 + MARK)).map(paint.yellow));
      }
      return rows;
    }),
  );
  section(
    'worktrees',
    report.worktrees.flatMap((entry) => {
      const name = `${shortPath(entry.path, entry.repository)}${checkedOut(entry.branch, entry.head)}`;
      return verdictRow(worktreeMark(entry), name, entry.reason, paint);
    }),
  );
  section(
    'branches',
    report.branches.flatMap((entry) =>
      verdictRow(entry.removable ? 'remove' : 'keep', entry.branch, entry.reason, paint),
    ),
  );
  section(
    'workspaces',
    (report.workspaces ?? []).flatMap((entry) => {
      const count = `${entry.panes.length} pane${entry.panes.length === 1 ? '' : 's'}`;
      const name = `${entry.workspace} ${entry.label} (${count}${inDir(entry.cwd)})`;
      return verdictRow(entry.removable ? 'remove' : 'keep', name, entry.reason, paint);
    }),
  );
  section(
    'panes',
    (report.panes ?? []).flatMap((entry) =>
      verdictRow(
        paneMark(entry),
        `${entry.pane} ${entry.program ?? 'unknown program'}${inDir(entry.cwd)}`,
        entry.reason,
        paint,
      ),
    ),
  );
  section(
    'landed but dirty',
    report.landed_dirty.flatMap((finding) =>
      verdictRow(
        'dirty',
        `${shortPath(finding.checkout, finding.repository)} (${finding.ref})`,
        `${finding.dirty} changed: ${finding.paths.join(', ')}`,
        paint,
      ),
    ),
  );
  section(
    'jobs',
    report.jobs.flatMap((job) =>
      verdictRow(job.removable ? 'remove' : 'keep', `${job.id} ${job.program}`, job.reason, paint),
    ),
  );
  section(
    'targets',
    report.targets.flatMap((target) =>
      verdictRow(
        target.removable ? 'remove' : 'keep',
        `${target.path} (${target.partial ? 'at least ' : ''}${formatBytes(target.bytes)})`,
        target.reason,
        paint,
      ),
    ),
  );
  if (report.disk) {
    section(
      `disk ${report.disk.used_percent}% used: largest dogsled paths`,
      report.disk.largest.map((item) => `  ${formatBytes(item.bytes).padStart(10)}  ${plainLine(item.path)}`),
    );
  }
  const hot = report.processes.hot.map(
    (proc) => `  ${String(proc.pid).padStart(7)}  ${proc.cpu_percent}%  ${plainLine(proc.name)}`,
  );
  if (report.processes.error) hot.push(...wrap(report.processes.error, '  ').map(paint.yellow));
  section('processes above 100% CPU (report only)', hot);
  section(
    'warnings',
    report.warnings.flatMap((warning) => wrap(warning, '  ').map(paint.yellow)),
  );

  const removable =
    report.worktrees.filter((e) => e.removable).length +
    report.branches.filter((e) => e.removable).length +
    report.repositories.filter((e) => e.removable).length +
    report.jobs.filter((e) => e.removable).length +
    report.targets.filter((e) => e.removable).length +
    (report.workspaces ?? []).filter((e) => e.removable).length +
    (report.panes ?? []).filter((e) => e.removable).length;
  if (lines.length > 0) lines.push('');
  lines.push(removable === 0 ? 'nothing to prune' : `${removable} removable: dogsled prune shows the plan`);
  return lines;
}

const NAME = 13;
const CHECK_NAMES: Record<InstallFinding['check'], string> = {
  service: 'service',
  path: 'PATH',
  claude: 'Claude Code',
  codex: 'Codex',
  'codex-hooks': 'Codex hooks',
  herdr: 'Herdr',
  warm: 'warm job',
};

/** `ok      service     serve runs under systemd (pid 4242)`, and under a fix, the command to run. */
function installRows(findings: readonly InstallFinding[], paint: Paint): string[] {
  return findings.flatMap((finding) => {
    const colour = finding.state === 'ok' ? paint.green : finding.state === 'fix' ? paint.yellow : paint.dim;
    const name = CHECK_NAMES[finding.check].padEnd(NAME);
    const [first = '', ...rest] = wrap(finding.detail, ' '.repeat(2 + MARK + NAME));
    const rows = [colour(`  ${finding.state.padEnd(MARK)}${name}${first.trimStart()}`), ...rest.map(colour)];
    if (finding.fix !== null)
      rows.push(...wrap(`run: ${finding.fix}`, ' '.repeat(2 + MARK + NAME)).map(paint.bold));
    return rows;
  });
}
