// Budgets (`[budget]`, beyond the spec): what each owner's children, and the children on each host,
// may spend in a day before a new child waits. Spend is the receipts' estimate (receipt.ts): children
// that ended within the day and children still running (their transcript so far). A child whose cost
// is unknown adds nothing. The rule holds back only children not yet started, never one that runs;
// a held ticket waits with its reason until the day ends, as a quota hold does. Pure: the day's
// bounds (the host's local midnight) and every child's cost come in.

import { clip, plainLine } from '../text/clean.js';
import { usdText } from './receipt.js';

export interface BudgetPolicy {
  /** `[budget.owner] usd_per_day`: each owner's children together; null: no limit. */
  owner_usd_per_day: number | null;
  /** `[budget.host] usd_per_day`: the children on each host together; null: no limit. */
  host_usd_per_day: number | null;
  /** `[budget.hosts."ID"] usd_per_day`: a host's own amount, over host_usd_per_day. */
  hosts: Readonly<Record<string, number>>;
}

/** The day spend is counted in: [start_ms, end_ms), the host's local midnight to the next. */
export interface BudgetDay {
  start_ms: number;
  end_ms: number;
}

/** One child's cost: one that ended (booked on the day it ended) or one still running. */
export interface ChildSpend {
  /** Its item id: a child seen twice (history and items) is counted once. */
  id: string;
  owner: string | null;
  host: string;
  /** The estimate in USD; null: unknown (no usage, or a model without a price). */
  usd: number | null;
  /** When it ended; null while it runs (counted whenever it started). */
  ended_ms: number | null;
}

export interface DaySpend {
  owners: ReadonlyMap<string, number>;
  hosts: ReadonlyMap<string, number>;
  /** Children of the day whose cost is unknown: they add nothing, and are named beside a total. */
  unknown: number;
}

export interface BudgetHold {
  pool: 'budget';
  /** The day's end: the next admission pass after it counts a new day. */
  until_ms: number;
  reason: string;
}

export interface BudgetVerdict {
  /** Why the child waits, or null when it may start on some host. */
  hold: BudgetHold | null;
  /** Hosts whose day is spent: the child may not start there (ids). */
  spent_hosts: string[];
}

const NAME_MAX = 64;

export function budgetActive(policy: BudgetPolicy): boolean {
  return (
    policy.owner_usd_per_day !== null ||
    policy.host_usd_per_day !== null ||
    Object.keys(policy.hosts).length > 0
  );
}

/** The host's amount a day: its own, else every host's; null when it has none. */
export function hostBudget(policy: BudgetPolicy, host: string): number | null {
  return Object.hasOwn(policy.hosts, host) ? (policy.hosts[host] ?? null) : policy.host_usd_per_day;
}

/** What the day's children cost, per owner and per host; each child once (its first entry). */
export function daySpend(children: readonly ChildSpend[], day: BudgetDay): DaySpend {
  const owners = new Map<string, number>();
  const hosts = new Map<string, number>();
  const seen = new Set<string>();
  let unknown = 0;
  for (const child of children) {
    if (seen.has(child.id)) continue;
    seen.add(child.id);
    if (child.ended_ms !== null && (child.ended_ms < day.start_ms || child.ended_ms >= day.end_ms)) continue;
    if (child.usd === null || !Number.isFinite(child.usd) || child.usd < 0) {
      unknown++;
      continue;
    }
    if (child.owner !== null) owners.set(child.owner, (owners.get(child.owner) ?? 0) + child.usd);
    hosts.set(child.host, (hosts.get(child.host) ?? 0) + child.usd);
  }
  return { owners, hosts, unknown };
}

/**
 * Whether a child of `owner`, pinned to `pin` or free to go to any of `hosts`, may start today:
 * its owner's day is spent, or every host it could go to has spent its own, is a hold until the
 * day ends; a host whose day is spent is left out of the hosts it may go to. A pin no host answers
 * to holds nothing (admission fails it).
 */
export function budgetVerdict(
  ticket: { owner: string | null; pin: string | null },
  hosts: ReadonlyArray<{ id: string; label: string }>,
  spend: DaySpend,
  policy: BudgetPolicy,
  day: BudgetDay,
): BudgetVerdict {
  const hold = (reason: string): BudgetHold => ({ pool: 'budget', until_ms: day.end_ms, reason });
  const ownerLimit = policy.owner_usd_per_day;
  const spentHosts = hosts.filter((host) => {
    const limit = hostBudget(policy, host.id);
    return limit !== null && (spend.hosts.get(host.id) ?? 0) >= limit;
  });
  const spentIds = spentHosts.map((host) => host.id);
  if (ticket.owner !== null && ownerLimit !== null) {
    const spent = spend.owners.get(ticket.owner) ?? 0;
    if (spent >= ownerLimit) {
      const owner = clip(plainLine(ticket.owner), NAME_MAX);
      return {
        hold: hold(`budget: owner ${owner} spent ${usdText(spent)} of its ${usdText(ownerLimit)} today`),
        spent_hosts: spentIds,
      };
    }
  }
  const pinned =
    ticket.pin === null
      ? undefined
      : (hosts.find((host) => host.id === ticket.pin) ?? hosts.find((host) => host.label === ticket.pin));
  if (ticket.pin !== null && pinned === undefined) return { hold: null, spent_hosts: spentIds };
  const pool = pinned === undefined ? hosts : [pinned];
  const open = pool.filter((host) => !spentIds.includes(host.id));
  if (pool.length === 0 || open.length > 0) return { hold: null, spent_hosts: spentIds };
  const spentText = (host: { id: string; label: string }) =>
    `${clip(plainLine(host.label), NAME_MAX)} spent ${usdText(spend.hosts.get(host.id) ?? 0)} of its ${usdText(hostBudget(policy, host.id) ?? 0)}`;
  const reason =
    pool.length === 1
      ? `budget: host ${spentText(pool[0] as { id: string; label: string })} today`
      : `budget: every host spent its day (${pool.map(spentText).join('; ')})`;
  return { hold: hold(reason), spent_hosts: spentIds };
}

/**
 * The verdicts of pending agent tickets (only children have receipts; jobs and placements are never
 * held by a budget), by ticket id. Nothing when no budget is set.
 */
export function ticketBudgets<
  T extends { id: string; kind: string; owner: string | null; pin: string | null },
>(
  pending: readonly T[],
  hosts: ReadonlyArray<{ id: string; label: string }>,
  spend: DaySpend,
  policy: BudgetPolicy,
  day: BudgetDay,
): Map<string, BudgetVerdict> {
  const verdicts = new Map<string, BudgetVerdict>();
  if (!budgetActive(policy)) return verdicts;
  for (const ticket of pending) {
    if (ticket.kind !== 'agent') continue;
    verdicts.set(ticket.id, budgetVerdict(ticket, hosts, spend, policy, day));
  }
  return verdicts;
}

/** One line per budget with what the day has spent of it, for the page and `status`. */
export interface BudgetLine {
  kind: 'owner' | 'host';
  name: string;
  spent_usd: number;
  /** null: this host or owner spends without a limit (shown for what it spent). */
  limit_usd: number | null;
  spent_out: boolean;
}

/** Every owner and host that spent today or has a limit, owners first, each by name. */
export function budgetLines(spend: DaySpend, policy: BudgetPolicy, hostIds: readonly string[]): BudgetLine[] {
  const line = (kind: BudgetLine['kind'], name: string, spent: number, limit: number | null): BudgetLine => ({
    kind,
    name: clip(plainLine(name), NAME_MAX),
    spent_usd: spent,
    limit_usd: limit,
    spent_out: limit !== null && spent >= limit,
  });
  const owners = [...spend.owners.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([owner, spent]) => line('owner', owner, spent, policy.owner_usd_per_day));
  const names = new Set([...hostIds, ...spend.hosts.keys(), ...Object.keys(policy.hosts)]);
  const hosts = [...names]
    .filter((host) => spend.hosts.has(host) || hostBudget(policy, host) !== null)
    .sort()
    .map((host) => line('host', host, spend.hosts.get(host) ?? 0, hostBudget(policy, host)));
  return [...owners, ...hosts];
}
