// Herdr's listing (`session.snapshot`) checked by hand as ListingSchema (port-records.ts) checks it,
// without zod: it accepts only what the schema accepts and gives back what the schema would (an
// unknown agent status reads `unknown`); anything in doubt is undefined, and the caller asks zod,
// which says why. Held to the schema by test/unit/state/hand-checks.test.ts. Used by the lean
// send (listing-glance.ts) and by the Herdr port's listAll, which the service calls every tick.

import {
  number as anyNumber,
  array,
  boolean,
  type Judge,
  looseObject,
  optional,
  string,
} from '../../state/checks/hand-check.js';
import type { AgentStatus, Listing } from '../port-records.js';

function fail(issues: { path: PropertyKey[]; message: string }[], path: PropertyKey[]): undefined {
  // `path` is the check's shared stack (hand-check.ts): the issue keeps a copy.
  issues.push({ path: [...path], message: 'invalid' });
  return undefined;
}

const number = anyNumber();
const text = optional(string());
const flag = optional(boolean);
/** AGENT_STATUSES (port-records.ts, which loads zod), each once: tsc holds the two together. */
const KNOWN: Record<AgentStatus, true> = {
  idle: true,
  working: true,
  blocked: true,
  done: true,
  unknown: true,
};
/** `z.catch(z.enum(AGENT_STATUSES), 'unknown')`: never fails. */
const status: Judge = (value) =>
  typeof value === 'string' && Object.hasOwn(KNOWN, value) ? value : 'unknown';
/** `z.optional(z.record(z.string(), z.string()))`. */
const tokens: Judge = (value, path, issues) => {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return fail(issues, path);
  const data: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(value)) {
    if (typeof entry !== 'string') return fail(issues, [...path, key]);
    if (key !== '__proto__') data[key] = entry;
  }
  return data;
};
const session = optional(looseObject({ source: string(), agent: string(), kind: string(), value: string() }));

const LISTING = looseObject({
  version: text,
  protocol: optional(number),
  focused_workspace_id: text,
  focused_tab_id: text,
  focused_pane_id: text,
  workspaces: array(
    looseObject({
      workspace_id: string(),
      number,
      label: string(),
      focused: boolean,
      pane_count: number,
      tab_count: number,
      active_tab_id: text,
      agent_status: status,
      tokens,
      worktree: optional(
        looseObject({
          repo_key: string(),
          repo_name: string(),
          repo_root: string(),
          checkout_path: string(),
          is_linked_worktree: boolean,
        }),
      ),
    }),
  ),
  tabs: array(
    looseObject({
      tab_id: string(),
      workspace_id: string(),
      number,
      label: string(),
      focused: boolean,
      pane_count: number,
      agent_status: status,
    }),
  ),
  panes: array(
    looseObject({
      pane_id: string(),
      terminal_id: string(),
      workspace_id: string(),
      tab_id: string(),
      focused: boolean,
      cwd: text,
      foreground_cwd: text,
      label: text,
      agent: text,
      title: text,
      terminal_title: text,
      display_agent: text,
      agent_status: status,
      tokens,
      agent_session: session,
      revision: optional(number),
    }),
  ),
  agents: array(
    looseObject({
      terminal_id: string(),
      name: text,
      agent: text,
      title: text,
      terminal_title: text,
      display_agent: text,
      agent_status: status,
      tokens,
      agent_session: session,
      workspace_id: string(),
      tab_id: string(),
      pane_id: string(),
      focused: boolean,
      launch_pending: flag,
      interactive_ready: flag,
      state_change_seq: number,
      cwd: text,
      foreground_cwd: text,
    }),
  ),
});

/** The listing as ListingSchema reads it, checked by hand; undefined when in doubt. */
export function checkedListing(value: unknown): Listing | undefined {
  const issues: { path: PropertyKey[]; message: string }[] = [];
  const data = LISTING(value, [], issues);
  return issues.length > 0 ? undefined : (data as Listing);
}
