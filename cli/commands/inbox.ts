// `dogsled inbox list [--json]`, `inbox claim [--harness H]`, `inbox ack ID...`: the caller's own
// inbox (its Herdr terminal). The actions are service/actions/inbox-action.ts; this file renders them.

import { ackMyInbox, claimMyInbox, listMyInbox } from '../../service/actions/inbox-action.js';
import type { CliContext } from '../context.js';
import { claimJson, inboxListHuman, inboxListJson } from '../render/inbox.js';

export async function inboxListCommand(flags: { json?: boolean }, ctx: CliContext): Promise<number> {
  const listing = await listMyInbox(ctx);
  ctx.out(flags.json ? inboxListJson(listing, ctx.now()) : inboxListHuman(listing, ctx.now()));
  return 0;
}

export async function inboxClaimCommand(flags: { harness?: string }, ctx: CliContext): Promise<number> {
  const delivery = await claimMyInbox(ctx, flags.harness ?? 'pi');
  ctx.out(claimJson(delivery, ctx.now()));
  return 0;
}

export async function inboxAckCommand(ids: string[], ctx: CliContext): Promise<number> {
  const acked = await ackMyInbox(ctx, ids);
  ctx.out(`acknowledged ${acked} record${acked === 1 ? '' : 's'}\n`);
  return 0;
}
