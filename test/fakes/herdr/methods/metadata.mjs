// pane.report_metadata, workspace.report_metadata (§6.1) and notification.show (§6.3). Validation
// happens before anything changes; a stale `seq` is answered `ok` and changes nothing.
import { checkSource, checkTokenKeys, checkTtl, cleanValue } from '../lib/metadata.mjs';
import { AGENT_STATUSES, ApiError } from '../lib/protocol.mjs';

const POSITIONS = ['top-left', 'top-right', 'bottom-left', 'bottom-right'];
const SOUNDS = ['none', 'done', 'request'];

function sanitise(text, max) {
  return Array.from(
    text
      .replace(/[\r\n]+/g, ' ')
      .replace(/[\u0000-\u001f\u007f]/g, '')
      .trim(),
  )
    .slice(0, max)
    .join('');
}

export function metadataMethods(model, notifications) {
  return {
    'pane.report_metadata': (p) => {
      const pane = model.pane(p.str('pane_id'));
      const source = p.str('source');
      const tokens = p.strMap('tokens', { allowNull: true });
      const agent = p.optStr('agent');
      const appliesTo = p.optStr('applies_to_source');
      const title = p.optStr('title');
      const displayAgent = p.optStr('display_agent');
      const stateLabels = p.strMap('state_labels');
      const clearTitle = p.bool('clear_title');
      const clearDisplayAgent = p.bool('clear_display_agent');
      const clearStateLabels = p.bool('clear_state_labels');
      const seq = p.optUint('seq');
      const ttl = p.optUint('ttl_ms');
      checkSource(source);
      checkTtl(ttl);
      checkTokenKeys(tokens);
      for (const key of Object.keys(stateLabels ?? {})) {
        if (!AGENT_STATUSES.includes(key))
          throw new ApiError('invalid_state_label', `unknown agent status ${key}`);
      }
      if (agent !== undefined && agent.trim() === '')
        throw new ApiError('invalid_agent', 'agent label must not be empty');
      const nothing =
        Object.keys(tokens ?? {}).length === 0 &&
        title === undefined &&
        displayAgent === undefined &&
        stateLabels === undefined &&
        !clearTitle &&
        !clearDisplayAgent &&
        !clearStateLabels;
      const conflict =
        (title !== undefined && clearTitle) ||
        (displayAgent !== undefined && clearDisplayAgent) ||
        (stateLabels !== undefined && clearStateLabels);
      if (nothing || conflict) {
        throw new ApiError(
          'invalid_metadata_request',
          nothing ? 'nothing to report' : 'cannot set and clear the same field',
        );
      }
      const terminal = pane.terminal;
      if (terminal.tokens.isStale(source, seq)) return { type: 'ok' };
      if (tokens) terminal.tokens.apply(tokens, ttl);
      terminal.tokens.commitSeq(source, seq);
      // Presentation fields apply only to the agent (or source) they were meant for.
      const kind = model.agents.kind(pane);
      const applies =
        (agent === undefined || agent === kind) &&
        (appliesTo === undefined || pane.agent.report?.source === appliesTo);
      if (applies) {
        if (clearTitle) terminal.title = undefined;
        if (title !== undefined) terminal.title = cleanValue(title) || undefined;
        if (clearDisplayAgent) terminal.displayAgent = undefined;
        if (displayAgent !== undefined) terminal.displayAgent = cleanValue(displayAgent) || undefined;
        if (clearStateLabels) terminal.stateLabels = undefined;
        if (stateLabels !== undefined)
          terminal.stateLabels = Object.keys(stateLabels).length ? stateLabels : undefined;
      }
      model.agents.touch(pane);
      return { type: 'ok' };
    },

    'workspace.report_metadata': (p) => {
      const ws = model.workspace(p.str('workspace_id'));
      const source = p.str('source');
      const tokens = p.strMap('tokens', { required: true, allowNull: true });
      const seq = p.optUint('seq');
      const ttl = p.optUint('ttl_ms');
      checkSource(source);
      checkTtl(ttl);
      checkTokenKeys(tokens);
      if (Object.keys(tokens).length === 0)
        throw new ApiError('invalid_metadata_request', 'nothing to report');
      if (ws.tokens.isStale(source, seq)) return { type: 'ok' };
      ws.tokens.apply(tokens, ttl);
      ws.tokens.commitSeq(source, seq);
      model.events.emit('workspace_metadata_updated', { workspace: model.workspaceInfo(ws) });
      return { type: 'ok' };
    },

    'notification.show': (p) => {
      const rawTitle = p.str('title');
      const rawBody = p.optStr('body');
      const position = p.optEnum('position', POSITIONS);
      const sound = p.optEnum('sound', SOUNDS, 'none');
      const title = sanitise(rawTitle, 80);
      if (title === '') throw new ApiError('invalid_params', 'notification title must not be empty');
      const body = rawBody === undefined ? undefined : sanitise(rawBody, 240);
      const delivery = model.config.toast_delivery;
      let reason = 'shown';
      if (delivery === 'off') reason = 'disabled';
      else if (delivery === 'terminal' || delivery === 'system') reason = 'no_foreground_client';
      notifications.push({ title, body, position, sound, delivery, shown: reason === 'shown', reason });
      return { type: 'notification_show', shown: reason === 'shown', reason };
    },
  };
}
