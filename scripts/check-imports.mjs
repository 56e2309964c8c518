// Enforces the layering of DESIGN.md §2: service/core and sidebar/model are pure (they read no
// clock, environment or randomness; of this project's modules the core imports only its own, types
// too, and the model only core modules, its own, or types from anywhere), each zod schema in
// service/state/schemas is checked against the core's record at compile time and defines no record
// type of its own, service/ never imports the CLI or the sidebar, and a front end (FRONT_ENDS: the
// CLI, its commands, MCP tools, renderers and hot bundles; the sidebar; the Pi extension) reaches the service only through
// service/actions, one function per verb, and service/core's types and pure rules, never a feature,
// adapter or state module, not even for a type: it calls its verb's action, so it never writes a
// state file, takes a lock, builds a record or decides "this host or a peer" itself. In all product
// code (cli, service, sidebar, plugins):
// child processes start only in the runner and the job supervisor, Herdr's variables are read or
// set only in service/terminal (a message may name one), and /proc paths appear only in
// service/process and service/probe (process.getBuiltinModule counts as an import). No zod schema is
// built at a module's top level outside lazySchema (service/state/engine/lazy-schema.ts): built at import,
// a module's schemas were most of a hook's start-up. blessed and blessed-contrib are loaded only by
// sidebar/app.ts (other modules may import their types, which the bundle erases), and blessed-contrib
// only by a module's path, never its index (which loads every widget and costs start-up). The
// folders of service/ import values in layer order (LAYERS below). The test knobs (DOGSLED_TEST
// and DOGSLED_TEST_*) are named only by service/core/common/test-knobs.ts, which every production
// module asks. Comments may say anything: only code counts.
// Exits 1 with one line per violation.
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

// The checkout to check: this one, or another tree (a test's fixture) named as the one argument.
const root = process.argv[2] ? resolve(process.argv[2]) : join(dirname(fileURLToPath(import.meta.url)), '..');
const CORE = join(root, 'service', 'core');
/**
 * The front ends and what of service/ they may import: the CLI (its MCP tools included), the sidebar
 * (sidebar/, its pure model too) and the Pi extension (plugins/pi/src). Two commands run a program of
 * the service's own instead of a verb, each through its one entry: `serve` the service's composition
 * root, `host` the verbs peers run here (host-verbs sits beside actions, and calls them).
 */
const FRONT_ENDS = ['cli', 'sidebar', 'plugins/pi/src'];
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
const PRODUCT_DIRS = ['cli', 'service', 'sidebar', 'plugins'];
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

async function sourceFiles(dir, pattern = /\.ts$/) {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const files = [];
  for (const entry of entries) {
    // Installed packages and build output (a plugin's bundle holds the code it was built from).
    if (entry.name === 'node_modules' || entry.name === 'dist') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...(await sourceFiles(path, pattern)));
    else if (pattern.test(entry.name) && !entry.name.endsWith('.d.ts')) files.push(path);
  }
  return files;
}

/** The code's words: identifiers and the text of string and template literals, never comments. */
function codeWords(file, text) {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const words = [];
  const visit = (node) => {
    // `import type` and `export type` are erased from the bundle: their specifier loads nothing.
    // Not `import { type A }`: under verbatimModuleSyntax it stays, as `import 'module'`.
    if (ts.isImportDeclaration(node) && node.importClause?.isTypeOnly) return;
    if (ts.isExportDeclaration(node) && node.isTypeOnly) return;
    if (ts.isIdentifier(node) || ts.isPrivateIdentifier(node)) {
      words.push({ kind: isKey(node) ? 'key' : 'name', text: node.text });
    } else if (ts.isStringLiteralLike(node) || ts.isTemplateLiteralToken?.(node) || isTemplatePart(node)) {
      words.push({ kind: 'string', text: node.text });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return words;
}

/**
 * An identifier that names an object's property (env.X, { X: v }, { X }, const { X } = env, a
 * property signature): how an environment variable is read or set, unlike a constant's own name.
 */
function isKey(node) {
  const parent = node.parent;
  if (!parent) return false;
  if (ts.isPropertyAccessExpression(parent)) return parent.name === node;
  if (ts.isPropertyAssignment(parent) || ts.isPropertySignature(parent)) return parent.name === node;
  if (ts.isShorthandPropertyAssignment(parent)) return true;
  if (ts.isBindingElement(parent))
    return parent.propertyName === node || ts.isObjectBindingPattern(parent.parent);
  return false;
}

function isTemplatePart(node) {
  return (
    node.kind === ts.SyntaxKind.TemplateHead ||
    node.kind === ts.SyntaxKind.TemplateMiddle ||
    node.kind === ts.SyntaxKind.TemplateTail
  );
}

/**
 * `import type …` or `export type …` only: under verbatimModuleSyntax, `import { type A }` is kept
 * as `import 'x'` and loads the module, so it is not type-only.
 */
function typeOnlyImport(node) {
  const clause = ts.isImportDeclaration(node) ? node.importClause : node;
  return clause?.isTypeOnly === true;
}

function imports(file, text) {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found = [];
  const visit = (node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
      found.push({ spec: node.moduleSpecifier.text, typeOnly: typeOnlyImport(node) });
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      // `typeof import('…')`: a type, erased from the bundle, but a dependency all the same.
      found.push({ spec: node.argument.literal.text, typeOnly: true });
    } else if (
      ts.isCallExpression(node) &&
      (node.expression.kind === ts.SyntaxKind.ImportKeyword ||
        (ts.isIdentifier(node.expression) && node.expression.text === 'require') ||
        (ts.isPropertyAccessExpression(node.expression) && node.expression.name.text === 'getBuiltinModule'))
    ) {
      const arg = node.arguments[0];
      if (arg && ts.isStringLiteral(arg)) found.push({ spec: arg.text, typeOnly: false });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/**
 * The zod calls (`z.object(…)`, `z.int()`…) a module makes at its top level, when it runs, rather
 * than inside a function (a lazySchema thunk, a parser): each builds schema nodes at import.
 */
function eagerSchemas(file, text) {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found = [];
  const visit = (node) => {
    if (ts.isFunctionLike(node)) return;
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      ts.isIdentifier(node.expression.expression) &&
      node.expression.expression.text === 'z'
    ) {
      found.push({ line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1 });
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

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

// A front end's door into the service: actions, and core's types and pure rules (DESIGN §2).
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

// The sidebar's row model is pure too (DESIGN §2, STYLE 9): it may import service/core and itself.
const MODEL = join(root, 'sidebar', 'model');
for (const file of await sourceFiles(MODEL)) {
  const text = await readFile(file, 'utf8');
  const name = relative(root, file);
  for (const { spec, typeOnly } of imports(file, text)) {
    const target = spec.startsWith('.') ? resolve(dirname(file), spec) : null;
    if (!typeOnly && !target?.startsWith(`${CORE}/`) && !target?.startsWith(`${MODEL}/`)) {
      problems.push(`${name}: sidebar/model must stay pure but imports ${spec}`);
    }
  }
  const code = text.replace(/\/\/.*$/gm, '').replace(/\/\*[\s\S]*?\*\//g, '');
  for (const [what, pattern] of Object.entries(IMPURE)) {
    if (pattern.test(code)) problems.push(`${name}: sidebar/model uses ${what}`);
  }
}

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

// Layers (DESIGN §2, issue #30). The folders of service/, bottom to top: a value import may run
// within a layer or down, never up, so each layer can be read, tested and changed without the ones
// above it (a dynamic import() and a re-export count). Type imports are erased from the bundle and
// may cross, except into the core: it owns the types it works on (each state schema is checked
// against them at compile time) and, of this project's modules, imports only its own, types too.
// Two folders of one layer never import values from each other both ways (that pair would be one
// concern split in two), every folder has a layer, and no two files under service/ share a base
// name (index.ts aside): one name, one meaning.
const LAYERS = [
  { name: 'core', folders: ['core'] },
  { name: 'system', folders: ['time', 'process'] },
  { name: 'state', folders: ['state'] },
  { name: 'adapters', folders: ['probe', 'git', 'terminal', 'transport', 'bus'] },
  {
    name: 'features',
    folders: [
      'hosts',
      'jobs',
      'agents',
      'worktrees',
      'inbox',
      'cleanup',
      'quota',
      'board',
      'todos',
      'sweep',
      'watchdog',
      'queue',
      'install',
      'history',
    ],
  },
  { name: 'actions', folders: ['actions', 'host-verbs'] },
  { name: 'daemon', folders: ['daemon'] },
];
const LAYER_ORDER = LAYERS.map((layer) => layer.name).join(' → ');
/** A base name any folder may use for its entry point. */
const SHARED_BASE_NAMES = new Set(['index.ts']);

/** The service folder of a path relative to the root (`service/jobs/supervisor/x.ts` → `jobs`). */
function serviceFolder(name) {
  const parts = name.split('/');
  return parts[0] === 'service' && parts.length > 2 ? parts[1] : null;
}

function layerIndex(folder) {
  return LAYERS.findIndex((layer) => layer.folders.includes(folder));
}

async function layerProblems() {
  const found = [];
  const SERVICE = join(root, 'service');
  const files = (await sourceFiles(SERVICE)).sort();
  const unplaced = new Set();
  /** Value imports between two folders of one layer: `from>to` → the first such import seen. */
  const sideways = new Map();
  const byBaseName = new Map();
  for (const file of files) {
    const name = relative(root, file);
    const base = name.split('/').at(-1);
    if (!SHARED_BASE_NAMES.has(base)) byBaseName.set(base, [...(byBaseName.get(base) ?? []), name]);
    const from = serviceFolder(name);
    if (from === null || layerIndex(from) < 0) {
      unplaced.add(from === null ? name : `service/${from}`);
      continue;
    }
    const fromLayer = layerIndex(from);
    for (const { spec, typeOnly } of imports(file, await readFile(file, 'utf8'))) {
      const to = spec.startsWith('.') ? serviceFolder(relative(root, resolve(dirname(file), spec))) : null;
      // The core owns the types its rules work on: of this project's modules it imports only its
      // own, not even a type from elsewhere (a package's types, node:fs's Stats, are no layer's).
      // The purity check above names a value it imports from elsewhere.
      if (from === 'core' && spec.startsWith('.') && to !== 'core' && typeOnly) {
        found.push(`${name}: service/core imports only service/core, types too, but imports ${spec}`);
      }
      if (to === null || to === from) continue;
      const toLayer = layerIndex(to);
      if (typeOnly || toLayer < 0) {
        // A type crosses freely; a folder in no layer is reported once, below.
      } else if (toLayer > fromLayer) {
        found.push(
          `${name}: imports ${spec} upward, from the ${LAYERS[fromLayer].name} layer (${from}) into the ${LAYERS[toLayer].name} layer (${to}); layers run ${LAYER_ORDER}`,
        );
      } else if (toLayer === fromLayer) {
        const key = `${from}>${to}`;
        if (!sideways.has(key)) sideways.set(key, `${name} imports ${spec}`);
      }
    }
  }
  for (const where of [...unplaced].sort()) {
    found.push(`${where}: in no layer; give it one in scripts/check-imports.mjs (${LAYER_ORDER})`);
  }
  for (const [key, one] of sideways) {
    const [from, to] = key.split('>');
    const other = sideways.get(`${to}>${from}`);
    if (other === undefined || from > to) continue;
    found.push(
      `service/${from} and service/${to} import values from each other (${one}; ${other}): move what both need down a layer, or to the folder that owns it`,
    );
  }
  for (const [base, names] of byBaseName) {
    if (names.length > 1) found.push(`${names.join(', ')}: share the name ${base}; give each its own`);
  }
  return found;
}

// The state schemas read the core's records (DESIGN §2, issue #30): every schema exported from
// service/state/schemas names the core type it must match (`Check<Matches<typeof XSchema, X>>`,
// service/state/engine/schema-match.ts, which tsc then proves), and none defines a record type of
// its own from zod (`z.infer`, `z.output`, `z.input`).
const SCHEMAS = join(root, 'service', 'state', 'schemas');
const EXPORTED_SCHEMA = /^export const (\w+Schema)\b/gm;
const INFERRED = /\bz\.(infer|output|input)</;

async function schemaProblems() {
  const found = [];
  for (const file of (await sourceFiles(SCHEMAS)).sort()) {
    const name = relative(root, file);
    const code = (await readFile(file, 'utf8')).replace(/\/\/.*$/gm, '').replace(/\/\*[\s\S]*?\*\//g, '');
    if (INFERRED.test(code)) {
      found.push(
        `${name}: defines a record type from a schema (z.${code.match(INFERRED)[1]}); the core owns the types`,
      );
    }
    for (const [, schema] of code.matchAll(EXPORTED_SCHEMA)) {
      if (!new RegExp(`\\bMatches<typeof ${schema},`).test(code)) {
        found.push(
          `${name}: ${schema} is checked against no core type; add Check<Matches<typeof ${schema}, Record>> (state/engine/schema-match.ts)`,
        );
      }
    }
  }
  return found;
}

problems.push(...(await testKnobReaders()));

/**
 * A production file that names a test knob's variable in code (a key such as env.DOGSLED_TEST_X or
 * a string): only the knob module may, so every knob is gated, typed and documented in one place.
 * Tests and test/fakes set them freely; they are not product code.
 */
async function testKnobReaders() {
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

problems.push(...(await layerProblems()), ...(await schemaProblems()));

if (problems.length > 0) {
  for (const line of problems) console.error(line);
  process.exit(1);
}
console.log(
  'imports: service/core and sidebar/model are pure; service does not import cli or sidebar; front ends reach service/ through actions and core; processes, Herdr variables, /proc, blessed, the NATS client and the test knobs stay with their owners; schemas are built on first use; service folders import in layer order, no two import values from each other, no two files share a name; each state schema matches a core type',
);
