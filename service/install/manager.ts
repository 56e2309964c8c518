// `dogsled service install|status|uninstall`: the service under the user's own service manager,
// systemd's user manager (systemctl --user) on Linux and launchd (launchctl, gui/<uid>) on macOS.
// install writes the unit (service-files.ts) only once the manager answers, then enables and
// (re)starts it; status reads the unit back and asks the manager; uninstall stops, disables and
// removes it. Every manager call goes through the one runner, with the caller's environment.

import { access, mkdir, readFile, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { DogsledError, messageOf } from '../core/common/errors.js';
import {
  LAUNCHD_LABEL,
  launchdCommand,
  launchdPlist,
  SYSTEMD_UNIT,
  systemdCommand,
  systemdUnit,
  unitProblem,
} from '../core/install/service-unit.js';
import { plainLine } from '../core/text/clean.js';
import { type RunResult, runProcess, SpawnError } from '../process/run-process.js';
import { writeAtomic } from '../state/engine/atomic-write.js';
import { ensureStateDir } from '../state/paths.js';
import {
  type ManagerKind,
  managerOf,
  type ServiceManagerIO,
  serviceSpec,
  unitFile,
} from './service-files.js';

const MANAGER_TIMEOUT_MS = 30_000;

export interface ServiceReport {
  manager: ManagerKind;
  /** The unit or agent file. */
  file: string;
  /** Whether that file exists. */
  installed: boolean;
  /** The command the file runs (null when there is none or it cannot be read). */
  command: string[] | null;
  /** Enabled at login (systemd's UnitFileState; launchd: loaded), null when the manager did not say. */
  enabled: boolean | null;
  /** Running now, per the manager; null when it did not answer. */
  active: boolean | null;
  pid: number | null;
  /** Why the manager could not be asked, or what it said was wrong; null when all answered. */
  problem: string | null;
  /** systemd: whether the user manager outlives logout (loginctl enable-linger); null elsewhere. */
  linger: boolean | null;
}

export interface InstallReport extends ServiceReport {
  /** The variables the unit passes on (PATH, where state and config live). */
  env: string[];
  log: string;
}

export async function installService(io: ServiceManagerIO): Promise<InstallReport> {
  const kind = managerOf(io.platform);
  const file = unitFile(kind, io.env, io.home);
  const spec = await serviceSpec(io);
  const problem = unitProblem(spec);
  if (problem !== null) throw new DogsledError(`cannot write a unit for this service: ${problem}`);
  // Asked before anything is written: a unit its manager never loads is a unit that lies.
  if (kind === 'systemd') {
    await systemctl(io, ['show-environment']).catch((error: unknown) => {
      throw new DogsledError(`systemd's user manager does not answer (${messageOf(error)}); nothing written`);
    });
  }
  await ensureStateDir(io.paths.dir);
  await mkdir(dirname(file), { recursive: true });
  await writeAtomic(file, kind === 'systemd' ? systemdUnit(spec) : launchdPlist(spec), { mode: 0o644 });
  if (kind === 'systemd') {
    await systemctl(io, ['daemon-reload']);
    await systemctl(io, ['enable', SYSTEMD_UNIT]);
    // restart, not start: a service already running picks up the unit just written.
    await systemctl(io, ['restart', SYSTEMD_UNIT]);
  } else {
    const domain = `gui/${uid()}`;
    // Not loaded is fine: bootout only unloads an older copy so bootstrap reads the new one.
    await launchctl(io, ['bootout', `${domain}/${LAUNCHD_LABEL}`]).catch(() => undefined);
    await launchctl(io, ['enable', `${domain}/${LAUNCHD_LABEL}`]);
    await launchctl(io, ['bootstrap', domain, file]);
  }
  const status = await serviceStatus(io);
  return { ...status, env: spec.env.map(([key]) => key), log: spec.log };
}

export async function serviceStatus(io: ServiceManagerIO): Promise<ServiceReport> {
  const kind = managerOf(io.platform);
  const file = unitFile(kind, io.env, io.home);
  const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw new DogsledError(`cannot read ${file}: ${messageOf(error)}`);
  });
  const command = text === null ? null : kind === 'systemd' ? systemdCommand(text) : launchdCommand(text);
  const report: ServiceReport = {
    manager: kind,
    file,
    installed: text !== null,
    command,
    enabled: null,
    active: null,
    pid: null,
    problem: null,
    linger: kind === 'systemd' ? await lingering(io) : null,
  };
  try {
    Object.assign(report, kind === 'systemd' ? await systemdState(io) : await launchdState(io));
  } catch (error) {
    report.problem = messageOf(error);
  }
  return report;
}

export interface UninstallReport {
  manager: ManagerKind;
  file: string;
  removed: boolean;
}

export async function uninstallService(io: ServiceManagerIO): Promise<UninstallReport> {
  const kind = managerOf(io.platform);
  const file = unitFile(kind, io.env, io.home);
  const present = await access(file).then(
    () => true,
    () => false,
  );
  if (!present) return { manager: kind, file, removed: false };
  if (kind === 'systemd') {
    await systemctl(io, ['disable', '--now', SYSTEMD_UNIT]);
    await rm(file, { force: true });
    await systemctl(io, ['daemon-reload']);
  } else {
    await launchctl(io, ['bootout', `gui/${uid()}/${LAUNCHD_LABEL}`]).catch(() => undefined);
    await rm(file, { force: true });
  }
  return { manager: kind, file, removed: true };
}

async function systemdState(io: ServiceManagerIO): Promise<Partial<ServiceReport>> {
  const shown = await systemctl(io, [
    'show',
    SYSTEMD_UNIT,
    '--property=LoadState,ActiveState,UnitFileState,MainPID',
  ]);
  const props = new Map(
    shown.split('\n').flatMap((line) => {
      const at = line.indexOf('=');
      return at > 0 ? [[line.slice(0, at), line.slice(at + 1)] as const] : [];
    }),
  );
  const pid = Number(props.get('MainPID') ?? '0');
  const state = props.get('UnitFileState') ?? '';
  return {
    enabled: state === '' ? null : state === 'enabled' || state === 'enabled-runtime',
    active: props.has('ActiveState') ? props.get('ActiveState') === 'active' : null,
    pid: Number.isInteger(pid) && pid > 0 ? pid : null,
  };
}

async function launchdState(io: ServiceManagerIO): Promise<Partial<ServiceReport>> {
  let printed: string;
  try {
    printed = await launchctl(io, ['print', `gui/${uid()}/${LAUNCHD_LABEL}`]);
  } catch {
    // Not loaded: launchctl says "Could not find service".
    return { enabled: false, active: false, pid: null };
  }
  const pid = Number(/^\s*pid = (\d+)$/m.exec(printed)?.[1] ?? '0');
  return { enabled: true, active: /^\s*state = running$/m.test(printed), pid: pid > 0 ? pid : null };
}

/** systemd keeps a user's manager (and this service) past logout only for lingering users. */
async function lingering(io: ServiceManagerIO): Promise<boolean | null> {
  const user = io.env.USER || io.env.LOGNAME;
  if (!user) return null;
  return access(`/var/lib/systemd/linger/${user}`).then(
    () => true,
    () => false,
  );
}

function systemctl(io: ServiceManagerIO, args: string[]): Promise<string> {
  return manage(io, 'systemctl', ['--user', ...args]);
}

function launchctl(io: ServiceManagerIO, args: string[]): Promise<string> {
  return manage(io, 'launchctl', args);
}

/** Runs a manager command: its stdout, or one line saying how it failed and what it said. */
async function manage(io: ServiceManagerIO, file: string, args: string[]): Promise<string> {
  const what = [file, ...args].join(' ');
  let result: RunResult;
  try {
    result = await runProcess(file, args, { env: io.env, timeoutMs: MANAGER_TIMEOUT_MS, signal: io.signal });
  } catch (error) {
    if (error instanceof SpawnError && error.code === 'ENOENT')
      throw new DogsledError(`${file} is not on PATH`);
    throw error;
  }
  if (result.exitCode === 0) return result.stdout.toString('utf8');
  const said = plainLine(result.stderr.toString('utf8').trim().split('\n')[0] ?? '');
  const ending = result.timedOut ? 'timed out' : `exited with ${result.exitCode ?? result.signal}`;
  throw new DogsledError(`${what} ${ending}${said ? `: ${said}` : ''}`);
}

function uid(): number {
  return process.getuid?.() ?? 0;
}
