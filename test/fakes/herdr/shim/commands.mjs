// The §3 command table of the `herdr` shim: each row maps a CLI command to one socket method.
// `output` is 'envelope' (JSON line on stdout), 'raw' (the read text, no added newline) or
// 'silent' (report commands print nothing). `agent start` and offline `plugin link` live in main.
import { resolve } from 'node:path';
import { pairs, requireFlag, UsageError } from './args.mjs';

const abs = (path) => (path === undefined ? undefined : resolve(path));
const focusFlag = (f) => (f['no-focus'] ? false : Boolean(f.focus));
const nonEmpty = (map) => (Object.keys(map).length > 0 ? map : undefined);

function current(env) {
  if (!env.HERDR_PANE_ID)
    throw new UsageError('error: --current needs HERDR_PANE_ID (run inside a Herdr pane)');
  return env.HERDR_PANE_ID;
}

/** `[<pane>|--pane ID|--current]`, defaulting to $HERDR_PANE_ID when `fallback`. */
function paneTarget(a, env, fallback) {
  if (a.positionals[0] !== undefined) return a.positionals[0];
  if (a.flags.pane !== undefined) return a.flags.pane;
  if (a.flags.current || (fallback && env.HERDR_PANE_ID)) return current(env);
  return undefined;
}

const READ_FLAGS = { source: 'string', lines: 'int', format: 'string', ansi: 'bool', raw: 'bool' };

function readParams(a) {
  const source = (a.flags.source ?? 'recent').replace('recent-unwrapped', 'recent_unwrapped');
  const params = { source };
  if (a.flags.lines !== undefined) params.lines = a.flags.lines;
  if (a.flags.ansi) params.format = 'ansi';
  else if (a.flags.format !== undefined) params.format = a.flags.format;
  if (a.flags.raw || a.flags.ansi) params.strip_ansi = false;
  return params;
}

function tokenPatch(a) {
  const tokens = pairs(a.flags.token, 'token');
  for (const name of a.flags['clear-token'] ?? []) tokens[name] = null;
  return tokens;
}

export const COMMANDS = {
  workspace: {
    list: { method: 'workspace.list', build: () => ({}) },
    create: {
      spec: { flags: { cwd: 'string', label: 'string', env: 'multi', focus: 'bool', 'no-focus': 'bool' } },
      method: 'workspace.create',
      build: (a) => ({
        cwd: abs(a.flags.cwd),
        label: a.flags.label,
        focus: focusFlag(a.flags),
        env: nonEmpty(pairs(a.flags.env, 'env')),
      }),
    },
    get: {
      spec: { positionals: [1, 1] },
      method: 'workspace.get',
      build: (a) => ({ workspace_id: a.positionals[0] }),
    },
    close: {
      spec: { positionals: [1, 1] },
      method: 'workspace.close',
      build: (a) => ({ workspace_id: a.positionals[0] }),
    },
    focus: {
      spec: { positionals: [1, 1] },
      method: 'workspace.focus',
      build: (a) => ({ workspace_id: a.positionals[0] }),
    },
    'report-metadata': {
      spec: {
        positionals: [1, 1],
        flags: { source: 'string', token: 'multi', 'clear-token': 'multi', seq: 'int', 'ttl-ms': 'int' },
      },
      method: 'workspace.report_metadata',
      output: 'silent',
      build: (a) => ({
        workspace_id: a.positionals[0],
        source: requireFlag(a.flags, 'source'),
        tokens: tokenPatch(a),
        seq: a.flags.seq,
        ttl_ms: a.flags['ttl-ms'],
      }),
    },
  },
  tab: {
    list: {
      spec: { flags: { workspace: 'string' } },
      method: 'tab.list',
      build: (a) => ({ workspace_id: a.flags.workspace }),
    },
    create: {
      spec: {
        flags: {
          workspace: 'string',
          cwd: 'string',
          label: 'string',
          env: 'multi',
          focus: 'bool',
          'no-focus': 'bool',
        },
      },
      method: 'tab.create',
      build: (a) => ({
        workspace_id: a.flags.workspace,
        cwd: abs(a.flags.cwd),
        label: a.flags.label,
        focus: focusFlag(a.flags),
        env: nonEmpty(pairs(a.flags.env, 'env')),
      }),
    },
    close: {
      spec: { positionals: [1, 1] },
      method: 'tab.close',
      build: (a) => ({ tab_id: a.positionals[0] }),
    },
    focus: {
      spec: { positionals: [1, 1] },
      method: 'tab.focus',
      build: (a) => ({ tab_id: a.positionals[0] }),
    },
  },
  pane: {
    list: {
      spec: { flags: { workspace: 'string' } },
      method: 'pane.list',
      build: (a) => ({ workspace_id: a.flags.workspace }),
    },
    get: { spec: { positionals: [1, 1] }, method: 'pane.get', build: (a) => ({ pane_id: a.positionals[0] }) },
    close: {
      spec: { positionals: [1, 1] },
      method: 'pane.close',
      build: (a) => ({ pane_id: a.positionals[0] }),
    },
    focus: {
      spec: { positionals: [1, 1] },
      method: 'pane.focus',
      build: (a) => ({ pane_id: a.positionals[0] }),
    },
    current: {
      spec: { flags: { pane: 'string', current: 'bool' } },
      method: 'pane.current',
      build: (a, env) => ({ caller_pane_id: paneTarget(a, env, true) }),
    },
    split: {
      spec: {
        positionals: [0, 1],
        flags: {
          pane: 'string',
          current: 'bool',
          direction: 'string',
          ratio: 'number',
          cwd: 'string',
          env: 'multi',
          focus: 'bool',
          'no-focus': 'bool',
        },
      },
      method: 'pane.split',
      build: (a, env) => {
        const direction = requireFlag(a.flags, 'direction');
        if (!['right', 'down'].includes(direction)) {
          throw new UsageError(
            `error: invalid value '${direction}' for '--direction': expected right or down`,
          );
        }
        return {
          target_pane_id: paneTarget(a, env, false),
          direction,
          ratio: a.flags.ratio,
          cwd: abs(a.flags.cwd),
          focus: focusFlag(a.flags),
          env: nonEmpty(pairs(a.flags.env, 'env')),
        };
      },
    },
    'process-info': {
      spec: { flags: { pane: 'string', current: 'bool' } },
      method: 'pane.process_info',
      build: (a, env) => ({ pane_id: paneTarget(a, env, true) }),
    },
    layout: {
      spec: { flags: { pane: 'string', current: 'bool' } },
      method: 'pane.layout',
      build: (a, env) => ({ pane_id: paneTarget(a, env, true) }),
    },
    read: {
      spec: { positionals: [1, 1], flags: READ_FLAGS },
      method: 'pane.read',
      output: 'raw',
      build: (a) => ({ pane_id: a.positionals[0], ...readParams(a) }),
    },
    run: {
      spec: { positionals: [2, Infinity] },
      method: 'pane.send_input',
      output: 'silent',
      build: (a) => ({ pane_id: a.positionals[0], text: a.positionals.slice(1).join(' '), keys: ['Enter'] }),
    },
    'report-metadata': {
      spec: {
        positionals: [1, 1],
        flags: {
          source: 'string',
          token: 'multi',
          'clear-token': 'multi',
          title: 'string',
          'display-agent': 'string',
          'state-label': 'multi',
          seq: 'int',
          'ttl-ms': 'int',
        },
      },
      method: 'pane.report_metadata',
      output: 'silent',
      build: (a) => ({
        pane_id: a.positionals[0],
        source: requireFlag(a.flags, 'source'),
        tokens: nonEmpty(tokenPatch(a)),
        title: a.flags.title,
        display_agent: a.flags['display-agent'],
        state_labels: a.flags['state-label'] ? pairs(a.flags['state-label'], 'state-label') : undefined,
        seq: a.flags.seq,
        ttl_ms: a.flags['ttl-ms'],
      }),
    },
    'report-agent': {
      spec: {
        positionals: [1, 1],
        flags: { source: 'string', agent: 'string', state: 'string', message: 'string', seq: 'int' },
      },
      method: 'pane.report_agent',
      output: 'silent',
      build: (a) => ({
        pane_id: a.positionals[0],
        source: requireFlag(a.flags, 'source'),
        agent: requireFlag(a.flags, 'agent'),
        state: requireFlag(a.flags, 'state'),
        message: a.flags.message,
        seq: a.flags.seq,
      }),
    },
  },
  agent: {
    list: { method: 'agent.list', build: () => ({}) },
    get: { spec: { positionals: [1, 1] }, method: 'agent.get', build: (a) => ({ target: a.positionals[0] }) },
    focus: {
      spec: { positionals: [1, 1] },
      method: 'agent.focus',
      build: (a) => ({ target: a.positionals[0] }),
    },
    read: {
      spec: { positionals: [1, 1], flags: READ_FLAGS },
      method: 'agent.read',
      output: 'raw',
      build: (a) => ({ target: a.positionals[0], ...readParams(a) }),
    },
    wait: {
      spec: { positionals: [1, 1], flags: { until: 'multi', timeout: 'int' } },
      method: 'agent.wait',
      build: (a) => ({ target: a.positionals[0], until: a.flags.until, timeout_ms: a.flags.timeout }),
    },
    prompt: {
      spec: { positionals: [2, 2], flags: { wait: 'bool', until: 'multi', timeout: 'int' } },
      method: 'agent.prompt',
      build: (a) => ({
        target: a.positionals[0],
        text: a.positionals[1],
        wait: a.flags.wait ? { until: a.flags.until, timeout_ms: a.flags.timeout } : undefined,
      }),
    },
  },
  worktree: {
    list: {
      spec: { flags: { workspace: 'string', cwd: 'string' } },
      method: 'worktree.list',
      build: (a) => ({ workspace_id: a.flags.workspace, cwd: abs(a.flags.cwd) }),
    },
    open: {
      spec: {
        flags: {
          workspace: 'string',
          cwd: 'string',
          path: 'string',
          branch: 'string',
          label: 'string',
          focus: 'bool',
          'no-focus': 'bool',
        },
      },
      method: 'worktree.open',
      build: (a) => ({
        workspace_id: a.flags.workspace,
        cwd: abs(a.flags.cwd),
        path: abs(a.flags.path),
        branch: a.flags.branch,
        label: a.flags.label,
        focus: focusFlag(a.flags),
      }),
    },
    create: {
      spec: {
        flags: {
          workspace: 'string',
          cwd: 'string',
          branch: 'string',
          base: 'string',
          path: 'string',
          label: 'string',
          focus: 'bool',
        },
      },
      method: 'worktree.create',
      build: (a) => ({
        workspace_id: a.flags.workspace,
        cwd: abs(a.flags.cwd),
        branch: a.flags.branch,
        base: a.flags.base,
        path: abs(a.flags.path),
        label: a.flags.label,
        focus: Boolean(a.flags.focus),
      }),
    },
    remove: {
      spec: { flags: { workspace: 'string', force: 'bool' } },
      method: 'worktree.remove',
      build: (a) => ({ workspace_id: requireFlag(a.flags, 'workspace'), force: Boolean(a.flags.force) }),
    },
  },
  notification: {
    show: {
      spec: { positionals: [1, 1], flags: { body: 'string', position: 'string', sound: 'string' } },
      method: 'notification.show',
      build: (a) => ({
        title: a.positionals[0],
        body: a.flags.body,
        position: a.flags.position,
        sound: a.flags.sound,
      }),
    },
  },
  api: {
    snapshot: { method: 'session.snapshot', build: () => ({}) },
  },
};

export const PLUGIN_PANE_COMMANDS = {
  open: {
    spec: {
      flags: {
        plugin: 'string',
        entrypoint: 'string',
        placement: 'string',
        width: 'string',
        height: 'string',
        workspace: 'string',
        'target-pane': 'string',
        direction: 'string',
        cwd: 'string',
        env: 'multi',
        focus: 'bool',
        'no-focus': 'bool',
      },
    },
    method: 'plugin.pane.open',
    build: (a) => ({
      plugin_id: requireFlag(a.flags, 'plugin'),
      entrypoint: requireFlag(a.flags, 'entrypoint'),
      placement: a.flags.placement,
      width:
        a.flags.width === undefined
          ? undefined
          : /^\d+$/.test(a.flags.width)
            ? Number(a.flags.width)
            : a.flags.width,
      height:
        a.flags.height === undefined
          ? undefined
          : /^\d+$/.test(a.flags.height)
            ? Number(a.flags.height)
            : a.flags.height,
      workspace_id: a.flags.workspace,
      target_pane_id: a.flags['target-pane'],
      direction: a.flags.direction,
      cwd: abs(a.flags.cwd),
      focus: focusFlag(a.flags),
      env: nonEmpty(pairs(a.flags.env, 'env')),
    }),
  },
  close: {
    spec: { positionals: [1, 1] },
    method: 'plugin.pane.close',
    build: (a) => ({ pane_id: a.positionals[0] }),
  },
  focus: {
    spec: { positionals: [1, 1] },
    method: 'plugin.pane.focus',
    build: (a) => ({ pane_id: a.positionals[0] }),
  },
};
