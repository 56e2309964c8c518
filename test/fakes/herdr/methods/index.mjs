// The method table of the fake server and `events.subscribe`, the one method that keeps its
// connection open (ack line, then one line per event until either side closes).
import { parseSubscriptions } from '../lib/events.mjs';
import { agentsMethods } from './agents.mjs';
import { fakeMethods } from './fake.mjs';
import { metadataMethods } from './metadata.mjs';
import { panesMethods } from './panes.mjs';
import { pluginsMethods } from './plugins.mjs';
import { sessionMethods } from './session.mjs';
import { worktreesMethods } from './worktrees.mjs';

/** Returned by a handler that answered on the socket itself. */
export const STREAMING = Symbol('streaming');

function eventsMethods(model) {
  return {
    'events.subscribe': (p, ctx) => {
      const subscriptions = parseSubscriptions(p.array('subscriptions', true));
      const initial = [];
      for (const sub of subscriptions) {
        if (sub.type !== 'pane.agent_status_changed') continue;
        const pane = model.pane(sub.pane_id);
        model.agents.refresh(pane);
        const data = model.agents.statusEvent(pane);
        if (sub.agent_status === undefined || sub.agent_status === data.agent_status) initial.push(data);
      }
      const write = (line) => {
        if (!ctx.socket.destroyed && ctx.socket.writable) ctx.socket.write(`${JSON.stringify(line)}\n`);
      };
      write({ id: ctx.id, result: { type: 'subscription_started' } });
      for (const data of initial) write({ event: 'pane.agent_status_changed', data });
      const unsubscribe = model.events.subscribe(subscriptions, write);
      // A client that half-closes after its request still gets events; only a full close ends it.
      ctx.socket.once('close', unsubscribe);
      return STREAMING;
    },
  };
}

export function createHandlers(model, control) {
  return {
    ...sessionMethods(model),
    ...panesMethods(model),
    ...agentsMethods(model),
    ...metadataMethods(model, control.notifications),
    ...worktreesMethods(model),
    ...pluginsMethods(model),
    ...eventsMethods(model),
    ...fakeMethods(model, control),
  };
}
