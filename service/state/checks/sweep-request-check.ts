// sweep-request.json checked by hand (engine/record-check.ts): the stop gate writes it on every Stop
// of every agent, and the lean hook (actions/hook-glance.ts) writes it without loading zod. Judges
// exactly as SweepRequestSchema (state/schemas/sweep-schemas.ts) does and gives the same data back;
// the unit test hand-checks.test.ts holds the two together.

import type { SweepRequest } from '../../core/cleanup/sweep-types.js';
import { handCheck, int, looseObject, nullable, string, versionOne } from './hand-check.js';

export const SweepRequestCheck = handCheck<SweepRequest>(
  looseObject({ version: versionOne, requested_ms: int, by: nullable(string()), handled_ms: nullable(int) }),
);
