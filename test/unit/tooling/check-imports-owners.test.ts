// `npm run check`'s layering script on a fixture tree: child processes, Herdr's variables and /proc
// paths are refused outside their owners, in code only (comments and longer names are fine); a zod
// schema built at a module's top level (outside lazySchema) is refused, since every command that
// imports the module would pay for it at start-up; a front end (the CLI, the sidebar, the Pi
// extension) reaches the service only through service/actions and service/core. The rules run in
// this process (a Node start and TypeScript's load per fixture were most of these files' time); the
// command `npm run check` runs is tested once, at the end.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importProblems } from '../../../scripts/imports/rules.mjs';
import { fixtureTree } from '../../helpers/tree.js';

describe('the owners check', () => {
  it('refuses a child process, a Herdr variable or a /proc path outside its owner', async () => {
    const root = await fixtureTree({
      'service/cleanup/spawns.ts': "import { spawn } from 'node:child_process';\nexport const s = spawn;\n",
      'service/cleanup/requires.ts': "export const c = require('child_process');\n",
      'cli/commands/pane.ts': 'export const pane = (env: NodeJS.ProcessEnv) => env.HERDR_PANE_ID;\n',
      'service/jobs/clears.ts': "export const cleared = { HERDR_ENV: '' };\n",
      'service/jobs/indexes.ts':
        "export const socket = (env: NodeJS.ProcessEnv) => env['HERDR_SOCKET_PATH'];\n",
      'service/inbox/destructures.ts':
        'export const tab = ({ HERDR_TAB_ID: tab }: NodeJS.ProcessEnv) => tab;\n',
      'sidebar/shape.ts': 'export interface Env {\n  HERDR_CONFIG_PATH?: string;\n}\n',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the fixture is source code with a template.
      'service/jobs/reads.ts': 'export const stat = (pid: number) => `/proc/${pid}/stat`;\n',
      'service/state/root.ts': "export const root = '/proc';\n",
    });
    const lines = await importProblems(root);
    expect(lines.sort()).toEqual([
      "cli/commands/pane.ts: reads Herdr's HERDR_PANE_ID outside service/terminal; ask the terminal layer",
      'service/cleanup/requires.ts: starts processes itself (child_process); use service/process/run-process.ts',
      'service/cleanup/spawns.ts: starts processes itself (node:child_process); use service/process/run-process.ts',
      "service/inbox/destructures.ts: reads Herdr's HERDR_TAB_ID outside service/terminal; ask the terminal layer",
      "service/jobs/clears.ts: reads Herdr's HERDR_ENV outside service/terminal; ask the terminal layer",
      "service/jobs/indexes.ts: reads Herdr's HERDR_SOCKET_PATH outside service/terminal; ask the terminal layer",
      'service/jobs/reads.ts: reads /proc ("/proc/"); use service/process/process-table.ts',
      'service/state/root.ts: reads /proc ("/proc"); use service/process/process-table.ts',
      "sidebar/shape.ts: reads Herdr's HERDR_CONFIG_PATH outside service/terminal; ask the terminal layer",
    ]);
  });

  it('lets the owners do it, anyone name them in comments, messages, longer names or constants, and skips build output', async () => {
    const root = await fixtureTree({
      'service/process/run-process.ts':
        "import { spawn } from 'node:child_process';\nexport const s = spawn;\n",
      'service/process/process-table.ts': "export const root = '/proc';\n",
      'service/probe/cpu.ts': "export const stat = '/proc/stat';\n",
      'service/jobs/supervisor/exec-child.ts':
        "import { spawn } from 'node:child_process';\nexport const s = spawn;\n",
      'service/terminal/env.ts': 'export const pane = (env: NodeJS.ProcessEnv) => env.HERDR_PANE_ID;\n',
      'service/jobs/report.ts': [
        "// The pane is HERDR_PANE_ID, read by the terminal layer; /proc/PID/stat is the table's.",
        "import type { ChildProcess } from 'node:child_process';",
        'export const EXEC_HERDR_TIMEOUT_MS = 10_000;',
        "export const where = '/procedures/proc';",
        'export type Child = ChildProcess;',
        '',
      ].join('\n'),
      // A plugin's built bundle holds the code it was built from, owners included.
      'plugins/pi/dist/index.js':
        "import { spawn } from 'node:child_process';\nexport const pane = process.env.HERDR_PANE_ID;\n",
      'cli/commands/board.ts': [
        "export const why = 'no owner: run it in a Herdr pane (HERDR_PANE_ID) or give --owner PANE';",
        'export const hint = `dogsled items --owner "$HERDR_PANE_ID"`;',
        'const HERDR_TIMEOUT_MS = 10_000;',
        'export const timeout = { ms: HERDR_TIMEOUT_MS };',
        '',
      ].join('\n'),
    });
    expect(await importProblems(root)).toEqual([]);
  });

  it("keeps blessed and blessed-contrib in sidebar/app.ts, and blessed-contrib's index out of everything", async () => {
    const refused = await fixtureTree({
      'sidebar/app.ts': [
        "import blessed from 'blessed';",
        "import contrib from 'blessed-contrib';",
        "export const map = require.resolve('blessed-contrib/index.js');",
        'export const b = [blessed, contrib];',
        '',
      ].join('\n'),
      'sidebar/panel.ts': "import blessed from 'blessed';\nexport const b = blessed;\n",
      // Its types may come along; a value beside them loads the package, and so does
      // `import { type A }`, which verbatimModuleSyntax keeps as `import 'blessed'`.
      'sidebar/menu.ts': [
        "import type { Widgets } from 'blessed';",
        "import { escape } from 'blessed';",
        'export const e: [Widgets.Screen?, typeof escape?] = [];',
        '',
      ].join('\n'),
      'sidebar/input.ts': "import { type Widgets } from 'blessed';\nexport type S = Widgets.Screen;\n",
      'cli/commands/gauge.ts': "export const g = require('blessed-contrib/lib/widget/gauge.js');\n",
    });
    const lines = await importProblems(refused);
    expect(lines.sort()).toEqual([
      'cli/commands/gauge.ts: loads blessed-contrib/lib/widget/gauge.js outside sidebar/app.ts',
      'sidebar/app.ts: loads blessed-contrib\'s index ("blessed-contrib"); load the widget\'s module',
      'sidebar/app.ts: loads blessed-contrib\'s index ("blessed-contrib/index.js"); load the widget\'s module',
      'sidebar/input.ts: loads blessed outside sidebar/app.ts',
      'sidebar/menu.ts: loads blessed outside sidebar/app.ts',
      'sidebar/panel.ts: loads blessed outside sidebar/app.ts',
    ]);
    const allowed = await fixtureTree({
      'sidebar/app.ts': [
        "// Not blessed-contrib's index: it loads every widget.",
        "import blessed from 'blessed';",
        "export const spark = require.resolve('blessed-contrib/lib/widget/sparkline.js');",
        'export const b = blessed;',
        '',
      ].join('\n'),
      'sidebar/model/theme.ts': "export const name = 'blessedColour';\n",
      // Types only: the bundle erases them, so only sidebar/app.ts loads blessed.
      'sidebar/menu.ts': [
        "import type blessed from 'blessed';",
        "import type { Widgets } from 'blessed';",
        "export type { Widgets as W } from 'blessed';",
        'export type Tui = typeof blessed;',
        'export type Screen = Widgets.Screen;',
        '',
      ].join('\n'),
    });
    expect(await importProblems(allowed)).toEqual([]);
  });
});

const ZOD = "import * as z from 'zod/mini';\nimport { lazySchema } from './lazy-schema.js';\n";

describe('the start-up check', () => {
  it('refuses a schema built at import and a child process loaded as a builtin outside its owner', async () => {
    const root = await fixtureTree({
      'service/state/eager.ts': `${ZOD}export const A = z.looseObject({ a: z.string() });\n`,
      'service/state/nested.ts': `${ZOD}export const B = lazySchema(() => z.int());\nexport const C = [z.string()];\n`,
      'cli/render/field.ts': `${ZOD}const id = z.string().check(z.minLength(1));\nexport const f = () => id;\n`,
      'service/cleanup/builtin.ts':
        "export const spawn = () => process.getBuiltinModule('node:child_process').spawn;\n",
    });
    const lines = await importProblems(root);
    expect(lines.sort()).toEqual([
      'cli/render/field.ts:3: builds a zod schema at import; wrap it in lazySchema (service/state/engine/lazy-schema.ts)',
      'service/cleanup/builtin.ts: starts processes itself (node:child_process); use service/process/run-process.ts',
      'service/state/eager.ts:3: builds a zod schema at import; wrap it in lazySchema (service/state/engine/lazy-schema.ts)',
      'service/state/nested.ts:4: builds a zod schema at import; wrap it in lazySchema (service/state/engine/lazy-schema.ts)',
    ]);
  });

  it('lets schemas be built lazily, inside functions, in the MCP modules and in the output documents', async () => {
    const root = await fixtureTree({
      'service/state/lazy.ts': [
        ZOD,
        '// z.looseObject({}) in a comment is not code.',
        'export const A = lazySchema(() => z.looseObject({ a: z.string(), b: z.array(z.int()) }));',
        'export const B = lazySchema(() => z.pick(A, { a: true }));',
        'export function parse(value: unknown) {',
        '  return z.safeParse(z.string(), value);',
        '}',
        'export const check = (value: unknown) => z.int().safeParse(value);',
        '',
      ].join('\n'),
      'cli/mcp/inputs.ts': `${ZOD}export const Input = z.strictObject({});\n`,
      'cli/output-schemas.ts': `${ZOD}export const Placed = z.strictObject({});\n`,
      'service/process/run-process.ts':
        "export const spawn = () => process.getBuiltinModule('node:child_process').spawn;\n",
    });
    const lines = await importProblems(root);
    expect(lines).toEqual([]);
  });
});

describe('the purity check', () => {
  it('keeps service/core free of I/O: a type import is erased, an inline `type` binding is not', async () => {
    const root = await fixtureTree({
      'service/core/reads.ts': "import { readFileSync } from 'node:fs';\nexport const r = readFileSync;\n",
      'service/core/inline.ts': "import { type Stats } from 'node:fs';\nexport type S = Stats;\n",
      'service/core/types.ts': "import type { Stats } from 'node:fs';\nexport type S = Stats;\n",
      'service/core/rule.ts': "import { type S } from './types.js';\nexport const n = (s: S) => s.size;\n",
    });
    const lines = await importProblems(root);
    expect(lines.map((line) => line.split(':')[0]).sort()).toEqual([
      'service/core/inline.ts',
      'service/core/reads.ts',
    ]);
  });
});

describe('the front-end check', () => {
  const DOOR = 'reach the service through service/actions (service/core for types and pure rules)';

  it('refuses a front end that imports a feature, adapter or state module, a type or a re-export included', async () => {
    const root = await fixtureTree({
      'cli/commands/stop.ts':
        "import { stopRef } from '../../service/jobs/by-ref.js';\nexport const s = stopRef;\n",
      'cli/render/status.ts':
        "import type { HostView } from '../../service/hosts/view.js';\nexport type V = HostView;\n",
      'cli/mcp/tools.ts':
        "import { type HostIO } from '../../service/state/io.js';\nexport type H = HostIO;\n",
      'cli/hot-loader.ts':
        "export type W = typeof import('../service/state/code-cache/code-cache-write.js');\n",
      'cli/hot/entry.ts': "export { mark } from '../../service/time/timing.js';\n",
      'cli/commands/hook.ts': "export const load = () => import('../../service/inbox/hook-state.js');\n",
      // The service's own programs have one command each: `serve` and `host`, no other.
      'cli/commands/status.ts':
        "import { runService } from '../../service/daemon/main.js';\nexport const r = runService;\n",
      'cli/commands/host.ts':
        "import { hostVerb } from '../../service/host-verbs/verb-table.js';\nimport { f } from '../../service/host-verbs/facts-verb.js';\nexport const h = [hostVerb, f];\n",
    });
    const lines = await importProblems(root);
    expect(lines.sort()).toEqual([
      `cli/commands/hook.ts: a front end imports ../../service/inbox/hook-state.js: ${DOOR}`,
      `cli/commands/host.ts: a front end imports ../../service/host-verbs/facts-verb.js: ${DOOR}`,
      `cli/commands/status.ts: a front end imports ../../service/daemon/main.js: ${DOOR}`,
      `cli/commands/stop.ts: a front end imports ../../service/jobs/by-ref.js: ${DOOR}`,
      `cli/hot-loader.ts: a front end imports ../service/state/code-cache/code-cache-write.js: ${DOOR}`,
      `cli/hot/entry.ts: a front end imports ../../service/time/timing.js: ${DOOR}`,
      `cli/mcp/tools.ts: a front end imports ../../service/state/io.js: ${DOOR}`,
      `cli/render/status.ts: a front end imports ../../service/hosts/view.js: ${DOOR}`,
    ]);
  });

  it('lets a front end call actions, use core, run the service and the host verbs, and import itself or packages', async () => {
    const root = await fixtureTree({
      'cli/commands/stop.ts': [
        "import { stopJobRef } from '../../service/actions/stop.js';",
        "import type { StopOutcome } from '../../service/actions/stop.js';",
        "import { EXIT } from '../../service/core/common/exit-codes.js';",
        "import { lazyHostIO } from '../io.js';",
        'export const s = [stopJobRef, EXIT, lazyHostIO];',
        'export type O = StopOutcome;',
        '',
      ].join('\n'),
      'cli/render/status.ts':
        "import type { Board } from '../../service/core/board/board-rule.js';\nexport type B = Board;\n",
      'cli/commands/serve.ts':
        "import { runService } from '../../service/daemon/main.js';\nexport const r = runService;\n",
      'cli/commands/host.ts': [
        "import { hostVerb } from '../../service/host-verbs/verb-table.js';",
        "export const rpc = () => import('../../service/host-verbs/rpc-server.js');",
        'export const h = hostVerb;',
        '',
      ].join('\n'),
      'cli/commands/sidebar.ts': [
        "import { readFile } from 'node:fs/promises';",
        "import { Command } from 'commander';",
        "export const app = () => import('../../sidebar/app.js');",
        'export const x = [readFile, Command];',
        '',
      ].join('\n'),
      'service/actions/stop.ts': "import { stopRef } from '../jobs/by-ref.js';\nexport const s = stopRef;\n",
      // The sidebar and the Pi extension are front ends too: actions, core, themselves.
      'sidebar/app.ts': [
        "import { readSidebarState } from '../service/actions/sidebar-state.js';",
        "import type { HostIO } from '../service/actions/verb-io.js';",
        "import { boardRows } from '../service/core/board/board-rule.js';",
        "import { Actions } from './actions.js';",
        'export const a = [readSidebarState, boardRows, Actions];',
        'export type H = HostIO;',
        '',
      ].join('\n'),
      'sidebar/model/types.ts':
        "export type { SidebarState } from '../../service/actions/sidebar-state.js';\n",
      'plugins/pi/src/binary.ts':
        "import { runDogsled } from '../../../service/actions/dogsled-call.js';\nexport const r = runDogsled;\n",
      // Not a front end's source: the extension's tests and built bundle.
      'plugins/pi/test/state.ts':
        "import { statePaths } from '../../../service/state/paths.js';\nexport const p = statePaths;\n",
    });
    expect(await importProblems(root)).toEqual([]);
  });

  it('refuses the sidebar, its model and the Pi extension reaching past actions, a type included', async () => {
    const root = await fixtureTree({
      'sidebar/state.ts': [
        "import { readRegular } from '../service/state/engine/regular-file.js';",
        "import type { HostIO } from '../service/state/io.js';",
        'export const r = readRegular;',
        'export type H = HostIO;',
        '',
      ].join('\n'),
      'sidebar/actions.ts': "export const open = () => import('../service/terminal/open.js');\n",
      'sidebar/model/types.ts':
        "import type { TodoLines } from '../../service/state/schemas/sidebar-schemas.js';\nexport type T = TodoLines;\n",
      'plugins/pi/src/todos.ts':
        "import { writeAtomic } from '../../../service/state/engine/atomic-write.js';\nexport const w = writeAtomic;\n",
      'plugins/pi/src/deps.ts':
        "export { callerPane } from '../../../service/terminal/herdr/herdr-env.js';\n",
    });
    const lines = await importProblems(root);
    expect(lines.sort()).toEqual([
      `plugins/pi/src/deps.ts: a front end imports ../../../service/terminal/herdr/herdr-env.js: ${DOOR}`,
      `plugins/pi/src/todos.ts: a front end imports ../../../service/state/engine/atomic-write.js: ${DOOR}`,
      `sidebar/actions.ts: a front end imports ../service/terminal/open.js: ${DOOR}`,
      `sidebar/model/types.ts: a front end imports ../../service/state/schemas/sidebar-schemas.js: ${DOOR}`,
      `sidebar/state.ts: a front end imports ../service/state/engine/regular-file.js: ${DOOR}`,
      `sidebar/state.ts: a front end imports ../service/state/io.js: ${DOOR}`,
    ]);
  });
});

describe('the command', () => {
  const SCRIPT = join(import.meta.dirname, '..', '..', '..', 'scripts', 'check-imports.mjs');
  const run = (root: string) => spawnSync(process.execPath, [SCRIPT, root], { encoding: 'utf8' });

  it('exits 1 with one line per violation on stderr, and 0 with its summary when the tree keeps the rules', async () => {
    const refused = run(
      await fixtureTree({
        'service/cleanup/spawns.ts': "import { spawn } from 'node:child_process';\nexport const s = spawn;\n",
        'service/work/loose.ts': 'export const x = 1;\n',
      }),
    );
    expect(refused.status).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr.split('\n').filter((line) => line !== '')).toEqual([
      'service/cleanup/spawns.ts: starts processes itself (node:child_process); use service/process/run-process.ts',
      'service/work: in no layer; give it one in scripts/imports/layers.mjs (core → system → state → adapters → features → actions → daemon)',
    ]);
    const kept = run(await fixtureTree({ 'service/core/units.ts': 'export const x = 1;\n' }));
    expect(kept.stderr).toBe('');
    expect(kept.stdout).toMatch(/^imports: service\/core, sidebar\/model and dash\/view are pure;/);
    expect(kept.status).toBe(0);
  });
});
