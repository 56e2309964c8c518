// sweep.json checked by hand (engine/record-check.ts): the lean `status --json` prints the latest
// pass whole without loading zod. Judges exactly as SweepPassSchema (state/schemas/sweep-schemas.ts)
// does and gives the same data back, fields in the schema's order; the unit test
// hand-checks.test.ts holds the two together.

import type { SweepPass } from '../../core/cleanup/sweep-types.js';
import {
  array,
  boolean,
  handCheck,
  int,
  looseObject,
  nullable,
  oneOf,
  optional,
  string,
  versionOne,
} from './hand-check.js';

const text = string();
const branch = nullable(text);

export const SweepPassCheck = handCheck<SweepPass>(
  looseObject({
    version: versionOne,
    ts_ms: int,
    started_ms: int,
    finished_ms: int,
    request_ms: nullable(int),
    trigger: optional(oneOf(['request', 'orphans'])),
    results: array(
      looseObject({
        kind: text,
        path: text,
        branch,
        branch_deleted: boolean,
        panes: array(text),
        already_removed: boolean,
        detail: text,
      }),
    ),
    skipped: array(looseObject({ kind: text, path: text, branch, reason: text })),
    failures: array(looseObject({ kind: text, path: text, branch, error: text })),
    warnings: array(text),
    landed_dirty: array(
      looseObject({ repository: text, checkout: text, ref: text, dirty: int, paths: array(text) }),
    ),
    unlinked: array(looseObject({ repository: text, path: text, reason: text })),
    orphans: optional(
      array(
        looseObject({
          item: text,
          name: nullable(text),
          pane: nullable(text),
          path: nullable(text),
          reason: text,
        }),
      ),
    ),
    error: nullable(text),
  }),
);
