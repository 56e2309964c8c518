// board-seen.json checked by hand (engine/record-check.ts): the lean `board --json` reads the
// owner's dismissals without loading zod. Judges exactly as BoardSeenSchema
// (state/schemas/sidebar-schemas.ts) does and gives the same data back; the unit test
// hand-checks.test.ts holds the two together.

import type { BoardSeenFile } from '../../core/board/board-types.js';
import { array, handCheck, int, looseObject, nullable, oneOf, string, versionOne } from './hand-check.js';

export const BoardSeenCheck = handCheck<BoardSeenFile>(
  looseObject({
    version: versionOne,
    seen: array(
      looseObject({
        owner: string(),
        kind: oneOf(['agent', 'job', 'ticket']),
        id: string(1),
        since_ms: nullable(int),
        seen_ms: int,
      }),
    ),
  }),
);
