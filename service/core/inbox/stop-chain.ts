// How many Stop blocks in a row an inbox hook may give. Claude Code ends a turn after 8 consecutive
// Stop blocks (CLAUDE_CODE_STOP_HOOK_BLOCK_CAP changes that, `0` disables it) and drops whatever the
// block past the cap carried; a hook sees only `stop_hook_active` (some Stop hook continued this
// turn), so it counts its own blocks. Near the cap it gives none, and what waits goes with the next
// prompt. Pure: the setting and the counts in, a verdict out.

/** Claude Code's cap when the setting is absent. */
export const STOP_BLOCK_CAP_DEFAULT = 8;
/** Blocks other Stop hooks give in the same chain are not seen here: this many are left to them. */
export const STOP_BLOCK_MARGIN = 2;

/** The most blocks in a row this hook gives, from the cap setting (`0`: no cap). */
export function stopBlockLimit(setting: string | undefined): number {
  const trimmed = setting?.trim() ?? '';
  const cap = /^\d{1,6}$/.test(trimmed) ? Number(trimmed) : STOP_BLOCK_CAP_DEFAULT;
  if (cap === 0) return Number.POSITIVE_INFINITY;
  return Math.max(1, cap - STOP_BLOCK_MARGIN);
}

/**
 * The block this Stop would be, counted from 1: a chain starts whenever `stop_hook_active` is false;
 * while it is true, `stored` is how many this hook gave so far (none recorded: none).
 */
export function nextStopBlock(active: boolean, stored: number | undefined): number {
  return active ? (stored ?? 0) + 1 : 1;
}
