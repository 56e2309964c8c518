// Reports the fake agent's state to Herdr the way the official integrations do: pane.report_agent
// over $HERDR_SOCKET_PATH, one newline-terminated JSON request per connection, source
// "herdr:<kind>", with the session as agent_session_id (Claude, Codex) or agent_session_path (Pi).
// Without HERDR_SOCKET_PATH or HERDR_PANE_ID nothing is sent. A report that fails is recorded and
// otherwise ignored, like the real hooks (which never fail the agent).

import { createConnection } from 'node:net';

let lastSeq = 0;

/** Strictly increasing per process, above any earlier run's values (Herdr drops stale seqs). */
function nextSeq() {
  lastSeq = Math.max(lastSeq + 1, Date.now() * 1000);
  return lastSeq;
}

function send(socketPath, request, timeoutMs) {
  return new Promise((resolve) => {
    let settled = false;
    let reply = '';
    const socket = createConnection(socketPath);
    const finish = (outcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(outcome);
    };
    const timer = setTimeout(() => finish({ ok: false, error: 'timeout' }), timeoutMs);
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(`${JSON.stringify(request)}\n`));
    socket.on('data', (chunk) => {
      reply += chunk;
      if (reply.includes('\n')) finish(parseReply(reply));
    });
    socket.on('end', () =>
      finish(reply ? parseReply(reply) : { ok: false, error: 'closed without a reply' }),
    );
    socket.on('error', (error) => finish({ ok: false, error: error.message }));
  });
}

function parseReply(text) {
  try {
    const reply = JSON.parse(text.split('\n')[0]);
    return reply.error ? { ok: false, error: reply.error.code ?? 'error' } : { ok: true };
  } catch {
    return { ok: false, error: 'unparseable reply' };
  }
}

export function herdrReporter(kind, env, session) {
  const socketPath = env.HERDR_SOCKET_PATH;
  const paneId = env.HERDR_PANE_ID;
  let enabled = Boolean(socketPath && paneId);
  return {
    get enabled() {
      return enabled;
    },
    /** A script's `"herdr_reports": false`: an agent Herdr finds by its process alone. */
    silence() {
      enabled = false;
    },
    /** @returns {Promise<{ok: boolean, error?: string, skipped?: boolean}>} */
    async report(state, message) {
      if (!enabled) return { ok: false, skipped: true };
      const params = { pane_id: paneId, source: `herdr:${kind}`, agent: kind, state, seq: nextSeq() };
      if (message) params.message = message;
      if (kind === 'pi' && session.path) params.agent_session_path = session.path;
      else params.agent_session_id = session.id;
      const request = {
        id: `herdr:${kind}:${Date.now()}:${process.pid}`,
        method: 'pane.report_agent',
        params,
      };
      const first = await send(socketPath, request, 500);
      if (first.ok || first.error !== 'timeout') return first;
      return send(socketPath, request, 1500);
    },
  };
}
