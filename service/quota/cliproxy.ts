// CLIProxy's (CLIProxyAPI's) management API over HTTPS, as the quota collector uses it. The
// management key travels only in memory, in the Authorization header of requests to the configured
// origin; it is never in argv, a file or a log, and any text that echoes it back is scrubbed before
// it can reach an error message. Certificates are verified, always: a private CA is trusted through
// the `ca` option (or Node's NODE_EXTRA_CA_CERTS), never by switching verification off.
//
// Shapes (CLIProxyAPI's management handlers and docs, help.router-for.me/management/api):
// - documented: every route is under /v0/management and takes `Authorization: Bearer <key>`;
//   `GET auth-files` answers `{files: [{auth_index, provider, label, email, account, name,
//   disabled, status, id_token: {chatgpt_account_id}}]}`; `POST api-call` takes `{auth_index,
//   method, url, header}` (with `$TOKEN$` replaced by the credential's token inside CLIProxy) and
//   answers `{status_code, header, body}` with the upstream body as a string.
// - from CLIProxy's source, not its docs: `supports_quota` on auth-files entries, and
//   `POST quota/fetch` with `{auth_index}` answering `{groups: [{displayName, buckets: [{window,
//   remainingFraction, resetTime}]}]}`, errors as `{error: "..."}` with a 4xx/5xx status.

import { Agent, request } from 'node:https';
import { squeezedLine } from '../core/text/clean.js';

export interface ManagementTarget {
  /** The https origin from `[quota] management_url`, without a trailing slash. */
  origin: string;
  key: string;
  /** Extra trust for a private CA (PEM); the system's roots otherwise. */
  ca?: string | Buffer | undefined;
}

/** A management call that failed; the message is safe to show and log. */
export class ManagementError extends Error {
  constructor(
    message: string,
    /** The HTTP status, or null when no answer came. */
    readonly status: number | null,
  ) {
    super(message);
    this.name = 'ManagementError';
  }
}

/** Largest answer read: a fleet's credentials list is far smaller; a bigger one is not CLIProxy's. */
const MAX_ANSWER_BYTES = 8 * 1024 * 1024;
/** A connection that stays silent this long is given up, whatever the overall deadline. */
const SOCKET_IDLE_MS = 20_000;

export interface ManagementSession {
  call(method: 'GET' | 'POST', path: string, body: unknown, signal: AbortSignal): Promise<unknown>;
  /** Closes the connections this session kept open. */
  close(): void;
}

/** One session: its calls share TLS connections, which close with it. */
export function openManagement(target: ManagementTarget): ManagementSession {
  const agent = new Agent({ keepAlive: true, maxSockets: 4, ...(target.ca ? { ca: target.ca } : {}) });
  return {
    call: (method, path, body, signal) => call(target, agent, method, path, body, signal),
    close: () => agent.destroy(),
  };
}

function call(
  target: ManagementTarget,
  agent: Agent,
  method: 'GET' | 'POST',
  path: string,
  body: unknown,
  signal: AbortSignal,
): Promise<unknown> {
  const scrub = (text: string): string => squeezedLine(scrubKey(text, target.key), 200);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const url = new URL(`/v0/management/${path}`, target.origin);
  return new Promise((resolve, reject) => {
    const fail = (message: string, status: number | null): void =>
      reject(new ManagementError(`${path}: ${scrub(message)}`, status));
    let req: ReturnType<typeof request>;
    try {
      req = request(url, {
        method,
        agent,
        signal,
        timeout: SOCKET_IDLE_MS,
        headers: {
          authorization: `Bearer ${target.key}`,
          accept: 'application/json',
          ...(payload === undefined
            ? {}
            : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
        },
      });
    } catch (error) {
      fail(describeError(error), null);
      return;
    }
    req.on('timeout', () => req.destroy(new Error(`no answer for ${SOCKET_IDLE_MS / 1000}s`)));
    req.on('error', (error) => fail(describeError(error), null));
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_ANSWER_BYTES) {
          req.destroy(new Error(`answer larger than ${MAX_ANSWER_BYTES} bytes`));
          return;
        }
        chunks.push(chunk);
      });
      res.on('error', (error) => fail(describeError(error), null));
      res.on('end', () => {
        const status = res.statusCode ?? 0;
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = text === '' ? undefined : JSON.parse(text);
        } catch {
          json = undefined;
        }
        if (status < 200 || status > 299) {
          fail(`HTTP ${status}${reasonOf(json)}`, status);
          return;
        }
        if (json === undefined) {
          fail('the answer is not JSON', status);
          return;
        }
        resolve(json);
      });
    });
    req.end(payload);
  });
}

/** `: <error>` from CLIProxy's `{error: "..."}` (or `{error: {message}}`), else nothing. */
function reasonOf(json: unknown): string {
  if (json === null || typeof json !== 'object') return '';
  const error = (json as { error?: unknown }).error;
  if (typeof error === 'string' && error.trim() !== '') return `: ${error}`;
  const message = (error as { message?: unknown } | undefined)?.message;
  return typeof message === 'string' && message.trim() !== '' ? `: ${message}` : '';
}

/** Every occurrence of the key, however an answer or error came to hold it. */
export function scrubKey(text: string, key: string): string {
  return key === '' ? text : text.split(key).join('[management key]');
}

function describeError(error: unknown): string {
  const e = error as NodeJS.ErrnoException & { reason?: unknown };
  if (e?.name === 'AbortError' || e?.code === 'ABORT_ERR') return 'deadline reached';
  const text = e instanceof Error ? e.message : String(error);
  return e?.code && !text.includes(e.code) ? `${e.code}: ${text}` : text;
}
