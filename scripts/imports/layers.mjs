// The layer rules of `npm run check` (scripts/check-imports.mjs): the order of service/'s folders,
// and the state schemas' tie to the core's records.
import { readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { imports, sourceFiles } from './parse.mjs';

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

export async function layerProblems(root) {
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
    found.push(`${where}: in no layer; give it one in scripts/imports/layers.mjs (${LAYER_ORDER})`);
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
const EXPORTED_SCHEMA = /^export const (\w+Schema)\b/gm;
const INFERRED = /\bz\.(infer|output|input)</;

export async function schemaProblems(root) {
  const found = [];
  for (const file of (await sourceFiles(join(root, 'service', 'state', 'schemas'))).sort()) {
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
