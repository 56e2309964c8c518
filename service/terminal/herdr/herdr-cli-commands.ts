// The herdr CLI spelling of each socket method the port uses (CONTRACT §3), so the CLI transport
// takes the same (method, params) as the socket. Params arrive in socket form (snake_case);
// commands print an envelope, raw text (reads) or nothing (metadata reports, `pane run`).

import { TerminalError } from '../terminal-errors.js';

export type CliOutput = 'envelope' | 'text' | 'none' | 'listing';

export interface CliCommand {
  args: string[];
  output: CliOutput;
  /** For raw-text reads: the source asked for, since the CLI prints only the text. */
  source?: string;
}

type Params = Record<string, unknown>;

function str(params: Params, key: string): string | undefined {
  const value = params[key];
  return value === undefined || value === null ? undefined : String(value);
}

function need(params: Params, key: string, method: string): string {
  const value = str(params, key);
  if (value === undefined) throw new Error(`${method}: ${key} is required`);
  return value;
}

/** Appends `--flag value` for each defined value. */
function flags(params: Params, pairs: [flag: string, key: string][]): string[] {
  const out: string[] = [];
  for (const [flag, key] of pairs) {
    const value = str(params, key);
    if (value !== undefined) out.push(flag, value);
  }
  return out;
}

function envFlags(params: Params): string[] {
  const env = (params.env ?? {}) as Record<string, string>;
  return Object.entries(env).flatMap(([key, value]) => ['--env', `${key}=${value}`]);
}

function focusFlag(params: Params): string[] {
  if (params.focus === undefined) return [];
  return [params.focus ? '--focus' : '--no-focus'];
}

function readFlags(params: Params): string[] {
  const source = str(params, 'source')?.replace('recent_unwrapped', 'recent-unwrapped');
  return [
    ...(source ? ['--source', source] : []),
    ...flags(params, [
      ['--lines', 'lines'],
      ['--format', 'format'],
    ]),
  ];
}

function metadataFlags(params: Params): string[] {
  const out = ['--source', String(params.source)];
  for (const [key, value] of Object.entries((params.tokens ?? {}) as Record<string, string | null>)) {
    if (value === null) out.push('--clear-token', key);
    else out.push('--token', `${key}=${value}`);
  }
  return [
    ...out,
    ...flags(params, [
      ['--seq', 'seq'],
      ['--ttl-ms', 'ttl_ms'],
    ]),
  ];
}

const envelope = (...args: string[]): CliCommand => ({ args, output: 'envelope' });

const COMMANDS: Record<string, (p: Params, m: string) => CliCommand> = {
  'session.snapshot': () => ({ args: ['api', 'snapshot'], output: 'listing' }),
  'workspace.list': () => envelope('workspace', 'list'),
  'workspace.get': (p, m) => envelope('workspace', 'get', need(p, 'workspace_id', m)),
  'workspace.create': (p) =>
    envelope(
      'workspace',
      'create',
      ...flags(p, [
        ['--cwd', 'cwd'],
        ['--label', 'label'],
      ]),
      ...envFlags(p),
      ...focusFlag(p),
    ),
  'workspace.close': (p, m) => envelope('workspace', 'close', need(p, 'workspace_id', m)),
  'workspace.report_metadata': (p, m) => ({
    args: ['workspace', 'report-metadata', need(p, 'workspace_id', m), ...metadataFlags(p)],
    output: 'none',
  }),
  'tab.list': (p) => envelope('tab', 'list', ...flags(p, [['--workspace', 'workspace_id']])),
  'tab.create': (p) =>
    envelope(
      'tab',
      'create',
      ...flags(p, [
        ['--workspace', 'workspace_id'],
        ['--cwd', 'cwd'],
        ['--label', 'label'],
      ]),
      ...envFlags(p),
      ...focusFlag(p),
    ),
  'tab.close': (p, m) => envelope('tab', 'close', need(p, 'tab_id', m)),
  'pane.list': (p) => envelope('pane', 'list', ...flags(p, [['--workspace', 'workspace_id']])),
  'pane.get': (p, m) => envelope('pane', 'get', need(p, 'pane_id', m)),
  'pane.current': (p) => envelope('pane', 'current', ...flags(p, [['--pane', 'caller_pane_id']])),
  'pane.split': (p) =>
    envelope(
      'pane',
      'split',
      ...flags(p, [
        ['--pane', 'target_pane_id'],
        ['--direction', 'direction'],
        ['--ratio', 'ratio'],
        ['--cwd', 'cwd'],
      ]),
      ...envFlags(p),
      ...focusFlag(p),
    ),
  'pane.close': (p, m) => envelope('pane', 'close', need(p, 'pane_id', m)),
  'pane.read': (p, m) => ({
    args: ['pane', 'read', need(p, 'pane_id', m), ...readFlags(p)],
    output: 'text',
    source: str(p, 'source') ?? 'recent',
  }),
  'pane.process_info': (p, m) => envelope('pane', 'process-info', '--pane', need(p, 'pane_id', m)),
  'pane.send_input': (p, m) => {
    const keys = p.keys as string[] | undefined;
    if (keys?.length !== 1 || keys[0] !== 'Enter' || typeof p.text !== 'string') {
      throw new TerminalError('needs_herdr', 'the herdr CLI can only send a line plus Enter', { method: m });
    }
    return { args: ['pane', 'run', need(p, 'pane_id', m), p.text], output: 'none' };
  },
  'pane.report_metadata': (p, m) => ({
    args: ['pane', 'report-metadata', need(p, 'pane_id', m), ...metadataFlags(p)],
    output: 'none',
  }),
  'pane.report_agent': (p, m) => ({
    args: [
      'pane',
      'report-agent',
      need(p, 'pane_id', m),
      '--source',
      need(p, 'source', m),
      '--agent',
      need(p, 'agent', m),
      '--state',
      need(p, 'state', m),
      ...flags(p, [
        ['--message', 'message'],
        ['--seq', 'seq'],
      ]),
    ],
    output: 'none',
  }),
  'agent.list': () => envelope('agent', 'list'),
  'agent.get': (p, m) => envelope('agent', 'get', need(p, 'target', m)),
  'agent.start': (p, m) => {
    const args = (p.args ?? []) as string[];
    return envelope(
      'agent',
      'start',
      need(p, 'name', m),
      '--kind',
      need(p, 'kind', m),
      '--pane',
      need(p, 'pane_id', m),
      ...flags(p, [['--timeout', 'timeout_ms']]),
      ...(args.length > 0 ? ['--', ...args] : []),
    );
  },
  'agent.read': (p, m) => ({
    args: ['agent', 'read', need(p, 'target', m), ...readFlags(p)],
    output: 'text',
  }),
  'agent.wait': (p, m) =>
    envelope(
      'agent',
      'wait',
      need(p, 'target', m),
      ...((p.until ?? []) as string[]).flatMap((s) => ['--until', s]),
      ...flags(p, [['--timeout', 'timeout_ms']]),
    ),
  'worktree.list': (p) =>
    envelope(
      'worktree',
      'list',
      ...flags(p, [
        ['--workspace', 'workspace_id'],
        ['--cwd', 'cwd'],
      ]),
    ),
  'worktree.open': (p) =>
    envelope(
      'worktree',
      'open',
      ...flags(p, [
        ['--workspace', 'workspace_id'],
        ['--cwd', 'cwd'],
        ['--path', 'path'],
        ['--branch', 'branch'],
        ['--label', 'label'],
      ]),
      ...focusFlag(p),
    ),
  'notification.show': (p, m) =>
    envelope(
      'notification',
      'show',
      need(p, 'title', m),
      ...flags(p, [
        ['--body', 'body'],
        ['--position', 'position'],
        ['--sound', 'sound'],
      ]),
    ),
  'plugin.pane.open': (p, m) =>
    envelope(
      'plugin',
      'pane',
      'open',
      '--plugin',
      need(p, 'plugin_id', m),
      '--entrypoint',
      need(p, 'entrypoint', m),
      ...flags(p, [
        ['--placement', 'placement'],
        ['--workspace', 'workspace_id'],
        ['--target-pane', 'target_pane_id'],
        ['--direction', 'direction'],
        ['--cwd', 'cwd'],
      ]),
      ...envFlags(p),
      ...focusFlag(p),
    ),
  'plugin.pane.close': (p, m) => envelope('plugin', 'pane', 'close', need(p, 'pane_id', m)),
  'plugin.list': (p) => envelope('plugin', 'list', ...flags(p, [['--plugin', 'plugin_id']]), '--json'),
};

/** The CLI command for a socket method, or a `needs_herdr` error when the CLI has no equivalent. */
export function cliCommand(method: string, params: Params): CliCommand {
  const build = COMMANDS[method];
  if (!build) {
    throw new TerminalError('needs_herdr', `${method} has no herdr CLI equivalent; it needs the socket`, {
      method,
    });
  }
  return build(params, method);
}
