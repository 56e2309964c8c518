// The rules of `npm run check`'s import check (scripts/check-imports.mjs, whose header says them all)
// on a tree: one line per violation, none when the tree keeps them. A test runs them in its own
// process on a fixture tree rather than start a Node and load TypeScript for each.
import { readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { layerProblems, schemaProblems } from './layers.mjs';
import { codeWords, eagerSchemas, imports, sourceFiles } from './parse.mjs';

/**
 * The front ends and what of service/ they may import: the CLI (its MCP tools included), the sidebar
 * (sidebar/, its pure model too) and the Pi extension (plugins/pi/src). Two commands run a program of
 * the service's own instead of a verb, each through its one entry: `serve` the service's composition
 * root, `host` the verbs peers run here (host-verbs sits beside actions, and calls them).
 */
const FRONT_ENDS = ['cli', 'sidebar', 'dash', 'plugins/pi/src'];
const FRONT_DOORS = ['service/actions/', 'service/core/'];
const PROGRAM_ENTRIES = {
  'cli/commands/serve.ts': ['service/daemon/main.ts'],
  'cli/commands/host.ts': ['service/host-verbs/verb-table.ts', 'service/host-verbs/rpc-server.ts'],
};
const IMPURE = {
  'process.': /\bprocess\./,
  'Date.now()': /\bDate\.now\(/,
  'new Date()': /\bnew Date\(\)/,
  'Math.random()': /\bMath\.random\(/,
  'setTimeout()': /\bsetTimeout\(/,
  'console.': /\bconsole\./,
};

/** Where a child process may be started: the one runner, detached launches, the job supervisor. */
const CHILD_PROCESS_OWNERS = [
  /^service\/process\/(run-process|launch-detached)\.ts$/,
  /^service\/jobs\/supervisor\/exec(-[a-z-]+)?\.ts$/,
];
/** The only folder that reads Herdr's variables (HERDR_PANE_ID, HERDR_ENV, HERDR_SOCKET_PATH...). */
const HERDR_OWNER = /^service\/terminal\//;
/** Where /proc/<pid> (service/process) and host-wide /proc files (service/probe) are read. */
const PROC_OWNERS = /^service\/(process|probe)\//;
const PRODUCT_DIRS = ['cli', 'service', 'sidebar', 'dash', 'plugins'];
/** The one module that loads the TUI libraries. */
const TUI_OWNER = 'sidebar/app.ts';
const TUI_PACKAGE = /^blessed(-contrib)?(\/|$)/;
/** The NATS client (the fleet bus) is loaded only by service/bus: by the service, and on demand by a command that calls a host met on the bus. */
const BUS_OWNER = /^service\/bus\//;
const BUS_PACKAGE = /^@nats-io\//;
const CONTRIB_INDEX = /^blessed-contrib(\/(index(\.js)?)?)?$/;
const SOURCE = /\.(ts|mts|js|mjs)$/;
/** A Herdr variable's name, whole: not a longer name that contains it (EXEC_HERDR_TIMEOUT_MS). */
const HERDR_NAME = /^HERDR_[A-Z0-9_]+$/;
const PROC_PATH = /(^|[^A-Za-z0-9_.-])\/proc(\/|$)/;
/** Modules whose schemas only `dogsled mcp`, tests and tools build: no hot command loads them. */
const EAGER_SCHEMAS_ALLOWED = [/^cli\/mcp\//, /^cli\/output-schemas\.ts$/];

/** Every violation under `root`, one line each, in the order the check reports them. */
export async function importProblems(root) {
  return [
    ...(await servicePurityProblems(root)),
    ...(await frontEndProblems(root)),
    ...(await modelPurityProblems(root)),
    ...(await ownerProblems(root)),
    ...(await testKnobReaders(root)),
    ...(await layerProblems(root)),
    ...(await schemaProblems(root)),
  ];
}

/** service/ never imports the CLI or the sidebar; service/core is pure. */
async function servicePurityProblems(root) {
  const CORE = join(root, 'service', 'core');
  const problems = [];
  for (const file of await sourceFiles(join(root, 'service'))) {
    const text = await readFile(file, 'utf8');
    const name = relative(root, file);
    const inCore = file.startsWith(CORE + '/');
    for (const { spec, typeOnly } of imports(file, text)) {
      const target = spec.startsWith('.') ? resolve(dirname(file), spec) : null;
      if (target && (target.startsWith(join(root, 'cli')) || target.startsWith(join(root, 'sidebar')))) {
        problems.push(
          `${name}: service code imports the ${relative(root, target).split('/')[0]} layer (${spec})`,
        );
      }
      if (inCore && !typeOnly && !target?.startsWith(`${CORE}/`)) {
        problems.push(`${name}: service/core must stay pure but imports ${spec}`);
      }
    }
    if (inCore) {
      const code = text.replace(/\/\/.*$/gm, '').replace(/\/\*[\s\S]*?\*\//g, '');
      for (const [what, pattern] of Object.entries(IMPURE)) {
        if (pattern.test(code)) problems.push(`${name}: service/core uses ${what}`);
      }
    }
  }
  return problems;
}

// A front end's door into the service: actions, and core's types and pure rules (DESIGN §2).
async function frontEndProblems(root) {
  const problems = [];
  for (const frontEnd of FRONT_ENDS) {
    for (const file of await sourceFiles(join(root, frontEnd))) {
      const name = relative(root, file);
      for (const { spec } of imports(file, await readFile(file, 'utf8'))) {
        if (!spec.startsWith('.')) continue;
        const target = relative(root, resolve(dirname(file), spec)).replace(/\.js$/, '.ts');
        if (!target.startsWith('service/') || FRONT_DOORS.some((door) => target.startsWith(door))) continue;
        if (PROGRAM_ENTRIES[name]?.includes(target)) continue;
        problems.push(
          `${name}: a front end imports ${spec}: reach the service through service/actions (service/core for types and pure rules)`,
        );
      }
    }
  }
  return problems;
}

// The sidebar's row model and the page's views are pure too (DESIGN §2, STYLE 9): each may import
// service/core and itself (and types from anywhere).
async function modelPurityProblems(root) {
  const CORE = join(root, 'service', 'core');
  const problems = [];
  for (const pure of ['sidebar/model', 'dash/view']) {
    const MODEL = join(root, ...pure.split('/'));
    for (const file of await sourceFiles(MODEL)) {
      const text = await readFile(file, 'utf8');
      const name = relative(root, file);
      for (const { spec, typeOnly } of imports(file, text)) {
        const target = spec.startsWith('.') ? resolve(dirname(file), spec) : null;
        if (!typeOnly && !target?.startsWith(`${CORE}/`) && !target?.startsWith(`${MODEL}/`)) {
          problems.push(`${name}: ${pure} must stay pure but imports ${spec}`);
        }
      }
      const code = text.replace(/\/\/.*$/gm, '').replace(/\/\*[\s\S]*?\*\//g, '');
      for (const [what, pattern] of Object.entries(IMPURE)) {
        if (pattern.test(code)) problems.push(`${name}: ${pure} uses ${what}`);
      }
    }
  }
  return problems;
}

/** Child processes, Herdr's variables, /proc, zod at import, blessed and NATS stay with their owners. */
async function ownerProblems(root) {
  const problems = [];
  for (const dir of PRODUCT_DIRS) {
    for (const file of await sourceFiles(join(root, dir), SOURCE)) {
      const text = await readFile(file, 'utf8');
      const name = relative(root, file);
      if (!CHILD_PROCESS_OWNERS.some((owner) => owner.test(name))) {
        for (const { spec, typeOnly } of imports(file, text)) {
          if (!typeOnly && (spec === 'node:child_process' || spec === 'child_process')) {
            problems.push(`${name}: starts processes itself (${spec}); use service/process/run-process.ts`);
          }
        }
      }
      if (!EAGER_SCHEMAS_ALLOWED.some((allowed) => allowed.test(name)) && /from 'zod\/mini'/.test(text)) {
        const eager = eagerSchemas(file, text)[0];
        if (eager) {
          problems.push(
            `${name}:${eager.line}: builds a zod schema at import; wrap it in lazySchema (service/state/engine/lazy-schema.ts)`,
          );
        }
      }
      const words = codeWords(file, text);
      if (!HERDR_OWNER.test(name)) {
        // A key or a string that is exactly the name reads or sets the variable; a message that
        // names it (`run it in a Herdr pane (HERDR_PANE_ID)`) and a constant of that name do not.
        const herdr = words.find((word) => word.kind !== 'name' && HERDR_NAME.test(word.text));
        if (herdr) {
          problems.push(
            `${name}: reads Herdr's ${herdr.text} outside service/terminal; ask the terminal layer`,
          );
        }
      }
      // Strings, not only imports: blessed-contrib is reached through require.resolve.
      for (const word of words) {
        if (word.kind !== 'string') continue;
        if (CONTRIB_INDEX.test(word.text)) {
          problems.push(
            `${name}: loads blessed-contrib's index (${JSON.stringify(word.text)}); load the widget's module`,
          );
        } else if (TUI_PACKAGE.test(word.text) && name !== TUI_OWNER) {
          problems.push(`${name}: loads ${word.text} outside ${TUI_OWNER}`);
        } else if (BUS_PACKAGE.test(word.text) && !BUS_OWNER.test(name)) {
          problems.push(`${name}: loads ${word.text} outside service/bus`);
        }
      }
      if (!PROC_OWNERS.test(name)) {
        const proc = words.find((word) => word.kind === 'string' && PROC_PATH.test(word.text));
        if (proc) {
          problems.push(
            `${name}: reads /proc (${JSON.stringify(proc.text)}); use service/process/process-table.ts`,
          );
        }
      }
    }
  }
  return problems;
}

/**
 * A production file that names a test knob's variable in code (a key such as env.DOGSLED_TEST_X or
 * a string): only the knob module may, so every knob is gated, typed and documented in one place.
 * Tests and test/fakes set them freely; they are not product code.
 */
async function testKnobReaders(root) {
  const KNOB_OWNER = 'service/core/common/test-knobs.ts';
  const KNOB = /\bDOGSLED_TEST(_[A-Z0-9_]*)?\b/;
  const found = [];
  for (const dir of PRODUCT_DIRS) {
    for (const file of await sourceFiles(join(root, dir), SOURCE)) {
      const name = relative(root, file);
      if (name === KNOB_OWNER) continue;
      for (const word of codeWords(file, await readFile(file, 'utf8'))) {
        const knob = word.kind === 'name' ? null : KNOB.exec(word.text);
        if (knob === null) continue;
        found.push(`${name}: names the test knob ${knob[0]}; ask ${KNOB_OWNER} (testKnob)`);
        break;
      }
    }
  }
  return found;
}
