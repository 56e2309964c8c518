// Event fan-out for `events.subscribe` (§2.7). Generic lifecycle events go out as
// {"event":"<snake_kind>","data":{"type":"<snake_kind>",...}} to subscribers of the dot name;
// the per-pane `pane.agent_status_changed` subscription gets {"event":"pane.agent_status_changed",
// "data":{pane_id, workspace_id, agent_status, agent?...}} (dot name, untagged). A bounded log of
// everything emitted backs `_fake.events.list`.
import { RequestError } from './protocol.mjs';

export const GENERIC_SUBSCRIPTIONS = [
  'workspace.created',
  'workspace.updated',
  'workspace.metadata_updated',
  'workspace.renamed',
  'workspace.moved',
  'workspace.reordered',
  'workspace.closed',
  'workspace.focused',
  'worktree.created',
  'worktree.opened',
  'worktree.removed',
  'tab.created',
  'tab.closed',
  'tab.focused',
  'tab.renamed',
  'tab.moved',
  'pane.created',
  'pane.closed',
  'pane.updated',
  'pane.focused',
  'pane.moved',
  'pane.exited',
  'pane.agent_detected',
  'layout.updated',
];

const LOG_LIMIT = 1000;

/** `pane_agent_detected` → `pane.agent_detected`: the first underscore becomes the dot. */
export function dotName(kind) {
  return kind.replace('_', '.');
}

/** Validates a subscriptions array; throws RequestError like serde would. */
export function parseSubscriptions(list) {
  return list.map((entry, index) => {
    if (entry === null || typeof entry !== 'object' || typeof entry.type !== 'string') {
      throw new RequestError(`invalid request: subscriptions[${index}]: missing field \`type\``);
    }
    if (GENERIC_SUBSCRIPTIONS.includes(entry.type)) return { type: entry.type };
    if (entry.type === 'pane.agent_status_changed') {
      if (typeof entry.pane_id !== 'string') {
        throw new RequestError(`invalid request: subscriptions[${index}]: missing field \`pane_id\``);
      }
      const status = entry.agent_status ?? undefined;
      return { type: entry.type, pane_id: entry.pane_id, agent_status: status };
    }
    throw new RequestError(`invalid request: subscriptions[${index}]: unknown variant \`${entry.type}\``);
  });
}

export class EventBus {
  #subscribers = new Set();
  log = [];

  /** Registers a writer; returns the function that removes it. */
  subscribe(subscriptions, write) {
    const subscriber = { subscriptions, write };
    this.#subscribers.add(subscriber);
    return () => this.#subscribers.delete(subscriber);
  }

  #record(line) {
    this.log.push(line);
    if (this.log.length > LOG_LIMIT) this.log.splice(0, this.log.length - LOG_LIMIT);
  }

  emit(kind, data) {
    const line = { event: kind, data: { type: kind, ...data } };
    this.#record(line);
    const name = dotName(kind);
    for (const subscriber of this.#subscribers) {
      if (subscriber.subscriptions.some((sub) => sub.type === name)) subscriber.write(line);
    }
  }

  /** `data` = {pane_id, workspace_id, agent_status, agent?, title?, display_agent?, state_labels?}. */
  emitAgentStatus(data) {
    const line = { event: 'pane.agent_status_changed', data };
    this.#record(line);
    for (const subscriber of this.#subscribers) {
      const match = subscriber.subscriptions.some(
        (sub) =>
          sub.type === 'pane.agent_status_changed' &&
          sub.pane_id === data.pane_id &&
          (sub.agent_status === undefined || sub.agent_status === data.agent_status),
      );
      if (match) subscriber.write(line);
    }
  }
}
