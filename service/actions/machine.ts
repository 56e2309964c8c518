// `dogsled machine …`: the fleet's host list. When Herdr has saved machines (0.9 machine verbs),
// each change runs the matching `herdr machine` command, and `add`/`reconnect` run it in a new
// focused Herdr tab so the user can answer SSH's prompts there. Otherwise the changes edit the
// `[[hosts]]` tables of dogsled's own config (state/config-hosts.ts), and `reconnect` runs one
// interactive `ssh TARGET true` in this terminal.

import { DogsledError } from '../core/common/errors.js';
import { shellLine } from '../core/common/shell-quote.js';
import { type Fleet, type PeerHost, peerOfMachine, readFleet } from '../hosts/fleet.js';
import { forgetMachineList } from '../hosts/machine-list.js';
import { runInteractive } from '../process/run-process.js';
import { addConfigHost, type ConfigFile, setConfigHostKey } from '../state/config/config-hosts.js';
import { HOST_ID } from '../state/config/config-rules.js';
import type { HostIO } from '../state/io.js';
import { changeMachine, savedMachines } from '../terminal/herdr/herdr-machines.js';
import { openTerminal } from '../terminal/open.js';
import { TerminalError } from '../terminal/terminal-errors.js';

const HERDR_TIMEOUT_MS = 10_000;

export interface MachineIO extends HostIO {
  configFile: ConfigFile;
}

export type MachineOutcome =
  | { kind: 'changed'; source: Fleet['source']; host: PeerHost }
  /** Opened in a new focused Herdr tab: the command runs there. */
  | { kind: 'tab'; pane: string; line: string }
  /** Ran here, in this terminal (no Herdr): `ssh` exited with `code`. */
  | { kind: 'interactive'; argv: string[]; code: number };

export async function listMachinesOf(io: MachineIO): Promise<Fleet> {
  return readFleet(io, { fresh: true });
}

/** Whether Herdr's machine verbs own the list: it has saved machines. */
async function herdrOwns(io: MachineIO): Promise<boolean> {
  const machines = await savedMachines(io.env, HERDR_TIMEOUT_MS).catch(() => null);
  return machines !== null && machines.length > 0;
}

/** The config host named by id or label (the id wins), or an error naming the known ones. */
function configHost(io: MachineIO, ref: string): PeerHost {
  const hosts = io.config.hosts;
  const host = hosts.find((h) => h.id === ref) ?? hosts.find((h) => h.label === ref);
  if (host) return host;
  const known = hosts.map((h) => h.id).join(', ') || 'none';
  throw new DogsledError(`unknown host "${ref}" (known: ${known})`);
}

export async function renameMachine(io: MachineIO, ref: string, label: string): Promise<MachineOutcome> {
  if (label.trim() === '' || /[\u0000-\u001f\u007f]/.test(label)) {
    // JSON-quoted: the error line is printed escape-free, and a stripped escape would hide what was wrong.
    throw new DogsledError(
      `label ${JSON.stringify(label)}: expected a non-empty name without control characters`,
    );
  }
  if (await herdrOwns(io)) return herdrChange(io, ['rename', ref, label]);
  const host = await setConfigHostKey(io.configFile, configHost(io, ref).id, 'label', label);
  return { kind: 'changed', source: 'config', host };
}

export async function enableMachine(io: MachineIO, ref: string, enabled: boolean): Promise<MachineOutcome> {
  if (await herdrOwns(io)) return herdrChange(io, [enabled ? 'enable' : 'disable', ref]);
  const host = await setConfigHostKey(io.configFile, configHost(io, ref).id, 'enabled', enabled);
  return { kind: 'changed', source: 'config', host };
}

async function herdrChange(io: MachineIO, args: string[]): Promise<MachineOutcome> {
  await forgetMachineList(io);
  const machine = await changeMachine(io.env, args, HERDR_TIMEOUT_MS);
  await forgetMachineList(io);
  if (machine === null) throw new DogsledError('herdr has no machine verbs any more');
  return { kind: 'changed', source: 'herdr', host: peerOfMachine(machine) };
}

export interface AddRequest {
  target: string;
  label: string | undefined;
}

/** A label from `user@host:port`-like targets when none is given: the host part. */
function defaultLabel(target: string): string {
  const host = target
    .replace(/^ssh:\/\//, '')
    .replace(/^[^@]*@/, '')
    .replace(/[:/].*$/, '');
  return host.replace(/[^A-Za-z0-9._-]/g, '-').replace(/^[^A-Za-z0-9]+/, '') || 'host';
}

export async function addMachine(io: MachineIO, request: AddRequest): Promise<MachineOutcome> {
  const { target } = request;
  if (target === '' || target.startsWith('-') || /[\s\u0000-\u001f\u007f]/.test(target)) {
    throw new DogsledError(
      `${JSON.stringify(target)}: not an ssh destination (no spaces or control characters, not starting with "-")`,
    );
  }
  const label = request.label ?? defaultLabel(target);
  const machines = await savedMachines(io.env, HERDR_TIMEOUT_MS).catch(() => null);
  if (machines !== null) {
    // The add completes in the new tab: the next reads ask Herdr again.
    await forgetMachineList(io);
    return inNewTab(io, ['herdr', 'machine', 'add', target, '--label', label], `add ${label}`);
  }
  if (!HOST_ID.test(label) || label === 'local') {
    throw new DogsledError(`--label "${label}": a host id is letters, digits, ".", "_" or "-" (not "local")`);
  }
  const host = await addConfigHost(io.configFile, { id: label, label, target, enabled: true });
  return { kind: 'changed', source: 'config', host };
}

/** Reconnects in a new focused Herdr tab (SSH may prompt), or here when there is no Herdr. */
export async function reconnectMachine(io: MachineIO, ref: string): Promise<MachineOutcome> {
  const fleet = await readFleet(io, { fresh: true });
  const host = fleet.peers.find((h) => h.id === ref) ?? fleet.peers.find((h) => h.label === ref);
  if (host === undefined) {
    const known = fleet.peers.map((h) => h.id).join(', ') || 'none';
    throw new DogsledError(`unknown host "${ref}" (known: ${known})`);
  }
  const argv =
    fleet.source === 'herdr'
      ? ['herdr', 'machine', 'reconnect', host.id]
      : ['ssh', '-o', 'BatchMode=no', '--', host.target, 'true'];
  const port = await openTerminal({ env: io.env, home: io.home, commandName: 'machine', warn: io.warn });
  if (port.kind === 'headless')
    return {
      kind: 'interactive',
      argv,
      code: await runInteractive(argv[0] as string, argv.slice(1), io.env),
    };
  return inNewTab(io, argv, `reconnect ${host.label}`, port);
}

async function inNewTab(
  io: MachineIO,
  argv: string[],
  label: string,
  opened?: Awaited<ReturnType<typeof openTerminal>>,
): Promise<MachineOutcome> {
  const port =
    opened ?? (await openTerminal({ env: io.env, home: io.home, commandName: 'machine', warn: io.warn }));
  if (port.kind === 'headless') {
    throw new DogsledError(
      `needs Herdr to open a tab for SSH prompts (${port.why}); run: ${shellLine(argv)}`,
    );
  }
  // A new tab in the active workspace; with no workspace open at all, a new workspace.
  const tab = await port.createTab({ focus: true, label, cwd: io.home }).catch(async (error: unknown) => {
    if (!(error instanceof TerminalError)) throw error;
    return port.createWorkspace({ focus: true, label, cwd: io.home });
  });
  const line = shellLine(argv);
  await port.runLine(tab.root_pane.pane_id, line);
  return { kind: 'tab', pane: tab.root_pane.pane_id, line };
}
