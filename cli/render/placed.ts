// What `place` prints for a reservation: one JSON document (output-schemas.ts) with --json, or a
// line for people (and the branch's worktree with --branch). The full command and the lean one
// (hot/place-lean.ts) print through it, so they print alike.

import type { BranchWorktree, Placement } from '../../service/actions/place.js';
import { formatAge } from '../../service/core/common/duration.js';
import type { Placed, PlacedBranch } from '../output-schemas.js';

export function placedText(
  json: boolean,
  placed: Placement & { ticket?: string; worktree?: BranchWorktree },
): string {
  const { reservation, worktree } = placed;
  if (json) {
    const doc: Placed | PlacedBranch = {
      placed: true,
      host: placed.host,
      label: placed.label,
      reservation: reservation.id,
      expires_ms: reservation.expires_ms,
      ...(placed.ticket === undefined ? {} : { ticket: placed.ticket }),
      ...(worktree === undefined
        ? {}
        : {
            path: worktree.path,
            pane_id: worktree.pane,
            branch: worktree.branch,
            workspace: worktree.workspace,
            created: worktree.created,
          }),
    };
    return `${JSON.stringify(doc)}\n`;
  }
  const ttl = formatAge(reservation.expires_ms - reservation.created_ms);
  const lines = [`reserved ${placed.label} (${placed.host}) for ${ttl}: ${reservation.id}\n`];
  if (worktree !== undefined) {
    const how = worktree.created ? 'made' : 'reused';
    lines.push(`worktree ${worktree.path} (${how}, branch ${worktree.branch}), pane ${worktree.pane}\n`);
  }
  return lines.join('');
}
