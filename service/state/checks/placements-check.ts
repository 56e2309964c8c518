// placements.json checked by hand (engine/record-check.ts): the lean `place` (actions/place-glance.ts)
// reserves under its lock without loading zod. Judges exactly as PlacementsSchema
// (state/schemas/host-schemas.ts) does and gives the same data back, so the store writes the same
// bytes and quarantines the same files; the unit test hand-checks.test.ts holds the two together.

import type { Placements } from '../../core/placement/host-types.js';
import { array, handCheck, int, looseObject, nullable, string, versionOne } from './hand-check.js';

export const PlacementsCheck = handCheck<Placements>(
  looseObject({
    version: versionOne,
    reservations: array(
      looseObject({ id: string(1), created_ms: int, expires_ms: int, owner: nullable(string()) }),
    ),
  }),
);
