// `npm run check`'s layer rules on fixture trees: the folders of service/ import values only within
// their layer or down (core → system → state → adapters → features → actions → daemon), two folders
// never import values from each other both ways, every folder has a layer, and no two files under
// service/ share a base name. Types cross freely, except into the core, which owns its types and
// imports nothing else; each state schema is checked against a core record, and defines none of its
// own. Dynamic imports and re-exports are values.
import { describe, expect, it } from 'vitest';
import { importProblems } from '../../../scripts/imports/rules.mjs';
import { fixtureTree } from '../../helpers/tree.js';

const ORDER = 'layers run core → system → state → adapters → features → actions → daemon';

const value = (spec: string, name = 'x') => `import { ${name} } from '${spec}';\nexport const y = ${name};\n`;

describe('the layer order', () => {
  it('refuses a value import that runs upward, naming the file, the import and both layers', async () => {
    const root = await fixtureTree({
      'service/jobs/job-ref.ts': value('../actions/ticket-wait.js'),
      'service/actions/ticket-wait.ts': 'export const x = 1;\n',
      'service/state/records/panes.ts': value('../../terminal/port.js'),
      'service/terminal/port.ts': 'export const x = 1;\n',
      // A dynamic import loads the module all the same, and so does a re-export.
      'service/time/deadline.ts': "export const load = () => import('../state/io.js');\n",
      'service/state/io.ts': 'export const x = 1;\n',
      'service/transport/local.ts': "export { x } from '../jobs/self-invocation.js';\n",
      'service/jobs/self-invocation.ts': 'export const x = 1;\n',
      'service/host-verbs/verbs.ts': value('../daemon/main.js'),
      'service/daemon/main.ts': 'export const x = 1;\n',
    });
    const lines = await importProblems(root);
    expect(lines.sort()).toEqual([
      `service/host-verbs/verbs.ts: imports ../daemon/main.js upward, from the actions layer (host-verbs) into the daemon layer (daemon); ${ORDER}`,
      `service/jobs/job-ref.ts: imports ../actions/ticket-wait.js upward, from the features layer (jobs) into the actions layer (actions); ${ORDER}`,
      `service/state/records/panes.ts: imports ../../terminal/port.js upward, from the state layer (state) into the adapters layer (terminal); ${ORDER}`,
      `service/time/deadline.ts: imports ../state/io.js upward, from the system layer (time) into the state layer (state); ${ORDER}`,
      `service/transport/local.ts: imports ../jobs/self-invocation.js upward, from the adapters layer (transport) into the features layer (jobs); ${ORDER}`,
    ]);
  });

  it('lets values run down or within a layer, and types anywhere', async () => {
    const root = await fixtureTree({
      'service/daemon/main.ts': value('../actions/run.js'),
      'service/actions/run.ts': value('../jobs/launch.js'),
      'service/jobs/launch.ts': value('../agents/names.js'),
      'service/agents/names.ts': value('../terminal/port.js'),
      'service/terminal/port.ts': value('../state/io.js'),
      'service/state/io.ts': value('../process/run-process.js'),
      'service/process/run-process.ts': value('../time/timers.js'),
      'service/time/timers.ts': value('../core/common/units.js'),
      'service/core/common/units.ts':
        "import type { Ms } from '../placement/host-types.js';\nexport const x: Ms = 1;\n",
      'service/core/placement/host-types.ts': 'export type Ms = number;\n',
      'service/state/engine/store.ts':
        "import type { Port } from '../../terminal/port.js';\nexport type P = Port;\n",
      'service/jobs/supervisor/exec.ts': value('../../time/timers.js'),
    });
    expect(await importProblems(root)).toEqual([]);
  });

  it('refuses a folder, or a file, that has no layer', async () => {
    const root = await fixtureTree({
      'service/work/submit.ts': 'export const x = 1;\n',
      'service/work/place.ts': 'export const x = 1;\n',
      'service/loose.ts': 'export const x = 1;\n',
      'service/jobs/run.ts': value('../work/submit.js'),
    });
    const lines = await importProblems(root);
    expect(lines.sort()).toEqual([
      `service/loose.ts: in no layer; give it one in scripts/imports/layers.mjs (core → system → state → adapters → features → actions → daemon)`,
      `service/work: in no layer; give it one in scripts/imports/layers.mjs (core → system → state → adapters → features → actions → daemon)`,
    ]);
  });
});

describe('folders of one layer', () => {
  it('refuses two folders that import values from each other, a dynamic import included', async () => {
    const root = await fixtureTree({
      'service/agents/close-child.ts': value('../worktrees/anchor-close.js'),
      'service/worktrees/anchor-close.ts': 'export const x = 1;\n',
      'service/worktrees/unused-work.ts': value('../agents/close-child.js', 'y'),
      'service/inbox/gate.ts': "export const load = () => import('../sweep/sweep-files.js');\n",
      'service/sweep/sweep-files.ts': value('../inbox/inbox-files.js'),
      'service/inbox/inbox-files.ts': 'export const x = 1;\n',
      'service/terminal/listing.ts': value('../transport/peers.js'),
      'service/transport/peers.ts': value('../terminal/listing.js', 'load'),
    });
    const lines = await importProblems(root);
    expect(lines.sort()).toEqual([
      'service/agents and service/worktrees import values from each other (service/agents/close-child.ts imports ../worktrees/anchor-close.js; service/worktrees/unused-work.ts imports ../agents/close-child.js): move what both need down a layer, or to the folder that owns it',
      'service/inbox and service/sweep import values from each other (service/inbox/gate.ts imports ../sweep/sweep-files.js; service/sweep/sweep-files.ts imports ../inbox/inbox-files.js): move what both need down a layer, or to the folder that owns it',
      'service/terminal and service/transport import values from each other (service/terminal/listing.ts imports ../transport/peers.js; service/transport/peers.ts imports ../terminal/listing.js): move what both need down a layer, or to the folder that owns it',
    ]);
  });

  it('lets one folder use another, and types go both ways', async () => {
    const root = await fixtureTree({
      'service/agents/close-child.ts': value('../cleanup/prune.js'),
      'service/cleanup/prune.ts':
        "import type { Child } from '../agents/close-child.js';\nexport type C = Child;\nexport const x = 1;\n",
      'service/agents/launch.ts': value('../worktrees/branch-worktree.js'),
      'service/worktrees/branch-worktree.ts': value('../cleanup/prune.js'),
    });
    expect(await importProblems(root)).toEqual([]);
  });
});

describe('file names under service/', () => {
  it('refuses two files with one base name anywhere under service/, and lets every folder have an index.ts', async () => {
    const root = await fixtureTree({
      'service/jobs/read.ts': 'export const x = 1;\n',
      'service/inbox/read.ts': 'export const x = 1;\n',
      'service/state/records/read.ts': 'export const x = 1;\n',
      'service/daemon/publish/outbox.ts': 'export const x = 1;\n',
      'service/inbox/outbox.ts': 'export const x = 1;\n',
      'service/jobs/index.ts': 'export const x = 1;\n',
      'service/inbox/index.ts': 'export const x = 1;\n',
      // Outside service/, names are the front ends' own.
      'cli/commands/read.ts': 'export const x = 1;\n',
    });
    const lines = await importProblems(root);
    expect(lines.sort()).toEqual([
      'service/daemon/publish/outbox.ts, service/inbox/outbox.ts: share the name outbox.ts; give each its own',
      'service/inbox/read.ts, service/jobs/read.ts, service/state/records/read.ts: share the name read.ts; give each its own',
    ]);
  });
});

describe('the core owns its types', () => {
  const LAZY = "import { lazySchema } from '../engine/lazy-schema.js';\n";
  const schemaFile = (body: string) =>
    LAZY +
    "import * as z from 'zod/mini';\nimport type { Lease } from '../../core/placement/lease-types.js';\n" +
    "import type { Check, Matches } from '../engine/schema-match.js';\n" +
    'export const LeaseSchema = lazySchema(() => z.looseObject({ id: z.string() }));\n' +
    body;

  it('refuses a core module that imports a type from outside the core, naming the import', async () => {
    const root = await fixtureTree({
      'service/core/placement/tickets.ts':
        "import type { Ticket } from '../../state/schemas/queue-schemas.js';\nexport const first = (t: Ticket[]) => t[0];\n",
      'service/core/inbox/inbox-text.ts':
        "import type { Port } from '../../terminal/port.js';\nexport type P = Port;\n",
      'service/core/common/units.ts':
        "import type { Ms } from '../placement/lease-types.js';\nexport const x: Ms = 1;\n",
      'service/core/placement/lease-types.ts': 'export type Ms = number;\n',
      'service/state/schemas/queue-schemas.ts': 'export type Ticket = { id: string };\n',
      'service/terminal/port.ts': 'export type Port = { id: string };\n',
    });
    const lines = await importProblems(root);
    expect(lines.sort()).toEqual([
      'service/core/inbox/inbox-text.ts: service/core imports only service/core, types too, but imports ../../terminal/port.js',
      'service/core/placement/tickets.ts: service/core imports only service/core, types too, but imports ../../state/schemas/queue-schemas.js',
    ]);
  });

  it('refuses a state schema checked against no core record, and a record type inferred from a schema', async () => {
    const root = await fixtureTree({
      'service/core/placement/lease-types.ts': 'export type Lease = { id: string };\n',
      'service/state/schemas/lease-schemas.ts': schemaFile(
        'export const LeasesSchema = lazySchema(() => z.looseObject({ leases: z.array(LeaseSchema) }));\n' +
          'export type LeasesMatch = [Check<Matches<typeof LeaseSchema, Lease>>];\n',
      ),
      'service/state/schemas/hold-schemas.ts':
        LAZY +
        "import * as z from 'zod/mini';\nexport const HoldSchema = lazySchema(() => z.looseObject({ id: z.string() }));\n" +
        'export type Hold = z.infer<typeof HoldSchema>;\n',
      'service/state/schemas/pin-schemas.ts':
        LAZY +
        "import * as z from 'zod/mini';\nconst PinSchema = lazySchema(() => z.looseObject({ id: z.string() }));\n" +
        'export type Pin = z.output<typeof PinSchema>;\n',
    });
    const lines = await importProblems(root);
    expect(lines.sort()).toEqual([
      'service/state/schemas/hold-schemas.ts: HoldSchema is checked against no core type; add Check<Matches<typeof HoldSchema, Record>> (state/engine/schema-match.ts)',
      'service/state/schemas/hold-schemas.ts: defines a record type from a schema (z.infer); the core owns the types',
      'service/state/schemas/lease-schemas.ts: LeasesSchema is checked against no core type; add Check<Matches<typeof LeasesSchema, Record>> (state/engine/schema-match.ts)',
      'service/state/schemas/pin-schemas.ts: defines a record type from a schema (z.output); the core owns the types',
    ]);
  });

  it('lets a schema that names its core record pass, a mention in a comment aside', async () => {
    const root = await fixtureTree({
      'service/core/placement/lease-types.ts': 'export type Lease = { id: string };\n',
      'service/state/schemas/lease-schemas.ts': schemaFile(
        '// Not z.infer<typeof LeaseSchema>: the core owns Lease.\n' +
          'export type LeasesMatch = [Check<Matches<typeof LeaseSchema, Lease>>];\n',
      ),
    });
    expect(await importProblems(root)).toEqual([]);
  });
});
