// Enforces the layering of DESIGN.md §2: service/core, sidebar/model and dash/view are pure (they read no
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
// folders of service/ import values in layer order (LAYERS in imports/layers.mjs). The test knobs (DOGSLED_TEST
// and DOGSLED_TEST_*) are named only by service/core/common/test-knobs.ts, which every production
// module asks. Comments may say anything: only code counts. The rules live in scripts/imports/
// (rules.mjs, the layers in layers.mjs); this is their command.
// Exits 1 with one line per violation.
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { importProblems } from './imports/rules.mjs';

// The checkout to check: this one, or another tree (a test's fixture) named as the one argument.
const root = process.argv[2] ? resolve(process.argv[2]) : join(dirname(fileURLToPath(import.meta.url)), '..');
const problems = await importProblems(root);
if (problems.length > 0) {
  for (const line of problems) console.error(line);
  process.exit(1);
}
console.log(
  'imports: service/core, sidebar/model and dash/view are pure; service does not import cli or sidebar; front ends reach service/ through actions and core; processes, Herdr variables, /proc, blessed, the NATS client and the test knobs stay with their owners; schemas are built on first use; service folders import in layer order, no two import values from each other, no two files share a name; each state schema matches a core type',
);
