// Items and tickets for people: the work block of `status` (open items per owner, pending tickets),
// the short lists of `items`, and the one-line ticket summary `cancel` prints. Commands and errors
// come from files other programs write, so each is shown as one escape-free line.

import type { Item, Ticket } from '../../service/actions/items.js';
import { orphanedText } from '../../service/core/cleanup/orphan-rule.js';
import { formatAge } from '../../service/core/common/duration.js';
import { isHeld } from '../../service/core/quota/quota-hold.js';
import { clip, plainLine } from '../../service/core/text/clean.js';
import { commandLine } from './text.js';

const COMMAND_WIDTH = 36;
/** What fits a status row in 80 columns beside ids, ages and the owner. */
const STATUS_COMMAND_WIDTH = 28;
const STATUS_TICKET_WIDTH = 20;
const NO_OWNER = '(no pane)';

/** A command as one bounded line: `sh -c 'echo hi'`. */
export function commandText(command: readonly string[] | undefined, width = COMMAND_WIDTH): string {
  if (!command || command.length === 0) return '-';
  return clip(commandLine(command), width);
}

/** What a ticket asks for: its job's command, a spawned child by name and harness (as the board names it), or `placement`. */
export function ticketWhat(ticket: Ticket, width = COMMAND_WIDTH): string {
  if (ticket.request !== null) return commandText(ticket.request.command, width);
  if (ticket.agent) return clip(plainLine(`${ticket.agent.name} (${ticket.agent.kind})`), width);
  return 'placement';
}

export function ownerText(owner: string | null): string {
  return owner === null ? NO_OWNER : plainLine(owner);
}

export function countText(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

function age(ms: number): string {
  return formatAge(Math.max(0, ms));
}

/** `api-dups (pi)`: a child by its Herdr name and harness, which a person knows it by. */
function childText(
  name: string | null | undefined,
  harness: string | null | undefined,
  width: number,
): string {
  if (!name) return '-';
  return clip(`${plainLine(name)}${harness ? ` (${plainLine(harness)})` : ''}`, width);
}

/**
 * `job j_abc  make test  open 3m`: one open or closed item without its owner; an orphaned child the
 * service keeps open ends with `orphaned: <reason>`.
 */
export function itemLine(item: Item, now: number, width = COMMAND_WIDTH, named = true): string {
  const what = item.job ? `${item.kind} ${item.job}` : `${item.kind} ${item.id}`;
  const when =
    item.closed_ms === null
      ? `open ${age(now - item.created_ms)}`
      : `closed ${age(now - item.closed_ms)} ago: ${plainLine(item.close_reason ?? 'closed')}`;
  const orphaned =
    item.closed_ms === null && item.orphaned ? `  ${orphanedText(plainLine(item.orphaned.reason))}` : '';
  // A status row keeps its 80 columns for an orphan's reason; `items` has room for the child's name.
  const doing =
    item.kind !== 'agent'
      ? commandText(item.command, width)
      : named
        ? childText(item.name, item.harness, width)
        : '-';
  return `${what}  ${doing}  ${when}${orphaned}`;
}

/** `t_abc pending  make test  queued 30s`: one ticket without its owner. */
export function ticketLine(ticket: Ticket, now: number, width = COMMAND_WIDTH): string {
  const head = `${ticket.id} ${ticket.state}  ${ticketWhat(ticket, width)}`;
  return `${head}  ${ticketWhen(ticket, now)}`.trimEnd();
}

function ticketWhen(ticket: Ticket, now: number): string {
  if (ticket.state === 'pending') {
    const queued = `queued ${age(now - ticket.created_ms)}`;
    if (!ticket.hold || !isHeld(ticket, now)) return queued;
    // The ticket's whole reason is in --json and on the board; a status row has room for the pool.
    const left = age(ticket.hold.until_ms - now);
    if (ticket.hold.pool === 'budget') return `${queued} · budget spent today, ${left} left`;
    return `${queued} · ${clip(plainLine(ticket.hold.pool), 12)} quota exhausted, ${left} left`;
  }
  if (ticket.state === 'admitting') return `admitting for ${age(now - ticket.state_ms)}`;
  if (ticket.state === 'admitted') {
    // What the admission made: a job, a child's item, or (`place`) only a reservation.
    const made = ticket.job
      ? `job ${ticket.job}`
      : ticket.item
        ? `item ${ticket.item}`
        : `reservation ${ticket.reservation ?? '?'}`;
    return `${made} on ${plainLine(ticket.host ?? '?')}`;
  }
  return ticket.error ? plainLine(ticket.error) : '';
}

function row(name: string, text: string): string {
  return `  ${name.padEnd(9)} ${text}`;
}

/** Groups by owner, keeping the first appearance order of owners and the order within each. */
function byOwner<T extends { owner: string | null }>(entries: readonly T[]): Array<[string | null, T[]]> {
  const groups = new Map<string | null, T[]>();
  for (const entry of entries) {
    const list = groups.get(entry.owner);
    if (list) list.push(entry);
    else groups.set(entry.owner, [entry]);
  }
  return [...groups.entries()];
}

/** The `status` block: open items per owner, then pending tickets in FIFO order, within 80 columns. */
export function renderWork(openItems: readonly Item[], pending: readonly Ticket[], now: number): string[] {
  const owners = byOwner(openItems);
  const items =
    openItems.length === 0
      ? 'no open items'
      : `${countText(openItems.length, 'open item')} of ${countText(owners.length, 'owner')}`;
  const lines = [`work  ·  ${items} · ${countText(pending.length, 'pending ticket')}`];
  for (const [owner, list] of owners) {
    lines.push(row('owner', ownerText(owner)));
    // An orphan's reason can be long (a loss-rule verdict): the row is clipped, --json has it whole.
    for (const item of list)
      lines.push(clip(row('', `  ${itemLine(item, now, STATUS_COMMAND_WIDTH, false)}`), 80));
  }
  for (const ticket of pending) {
    const command = ticketWhat(ticket, STATUS_TICKET_WIDTH);
    const state = ticket.state === 'pending' ? '' : ` ${ticket.state}`;
    lines.push(
      row(
        'pending',
        `${ticket.id}${state}  ${command}  ${ticketWhen(ticket, now)}  ${ownerText(ticket.owner)}`,
      ),
    );
  }
  return lines;
}

/** `items` for people: every item and every ticket still kept, one line each. */
export function renderItems(items: readonly Item[], queue: readonly Ticket[], now: number): string[] {
  const open = items.filter((item) => item.closed_ms === null).length;
  const lines = [`items: ${open} open, ${items.length - open} closed`];
  for (const item of items) lines.push(`  ${item.id}  ${ownerText(item.owner)}  ${itemLine(item, now)}`);
  const pending = queue.filter((t) => t.state === 'pending').length;
  lines.push(`queue: ${pending} pending, ${queue.length - pending} other`);
  for (const ticket of queue) lines.push(`  ${ticketLine(ticket, now)}  ${ownerText(ticket.owner)}`);
  return lines;
}
