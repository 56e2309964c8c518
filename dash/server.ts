// `dogsled dash`'s web server: on 127.0.0.1 at a free port, with a token that is new each start,
// one page (every section drawn on the server, text escaped by dash/view/html.ts), its live updates
// (server-sent events: when a state file the page reads changes, the sections whose markup changed,
// to each reader), and two actions, Stop and Close, each the CLI's own (service/actions/dash.ts).
// Every request passes dash/guard.ts first. The state is read only while a reader is connected (or
// for a page asked for), so an idle server does nothing but wait.

import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import {
  type DashMemory,
  type DashState,
  dashClose,
  dashJobFiles,
  dashReads,
  dashStop,
  readDashState,
} from '../service/actions/dash.js';
import type { LazyHostIO } from '../service/actions/verb-io.js';
import { DogsledError, messageOf } from '../service/core/common/errors.js';
import { squeezedLine } from '../service/core/text/clean.js';
import { watchState } from '../sidebar/watch.js';
import { pageWith, readAssets } from './assets.js';
import { Readers } from './events.js';
import { refusal } from './guard.js';
import { stopText } from './replies.js';
import { markup } from './view/html.js';
import { pageBody, renderSections } from './view/page-view.js';

export interface DashOptions {
  io: LazyHostIO;
  memory: DashMemory;
  /** dist/dash: the page's built files. */
  assets: string;
  /** Ends the server. */
  signal: AbortSignal;
  /** 0: a free port. */
  port?: number;
  /** Changes closer together than this are one read. */
  debounceMs?: number;
  /** A read at least this often while a reader is connected, in case a watch missed a change. */
  pollMs?: number;
}

export interface DashServer {
  url: string;
  port: number;
  /** Resolves once the server has closed (its signal aborted). */
  closed: Promise<void>;
}

const BODY_MAX = 16 * 1024;
const FIELD_MAX = 200;

export async function startDash(options: DashOptions): Promise<DashServer> {
  const assets = await readAssets(options.assets);
  const token = randomBytes(32).toString('base64url');
  const paths = options.io.paths;
  let state: DashState | undefined;
  let reading: Promise<DashState> | undefined;
  let again = false;
  const readers = new Readers();

  /** One read at a time; a change during a read asks for one more after it. */
  const read = async (): Promise<DashState> => {
    if (reading !== undefined) {
      again = true;
      return reading;
    }
    reading = (async () => {
      do {
        again = false;
        state = await readDashState(options.io, options.memory).catch((error: unknown) =>
          failedRead(state, options.io.now(), error),
        );
      } while (again);
      return state;
    })().finally(() => {
      reading = undefined;
    });
    return reading;
  };
  const refresh = async () => {
    if (readers.size === 0) return;
    const fresh = await read();
    watching?.follow(dashJobFiles(paths, fresh));
    readers.update(fresh);
  };

  const reads = dashReads(paths);
  const watching = await watchState(
    [
      ...reads.files.map((path) => ({ path })),
      { path: reads.peers, matches: (n: string) => n.endsWith('.json') },
    ],
    () => void refresh().catch(() => undefined),
    { debounceMs: options.debounceMs ?? 50, pollMs: options.pollMs ?? 60_000 },
  ).catch(() => undefined);

  const server = createServer((request, response) => {
    void answer(request, response).catch((error: unknown) => {
      if (!response.headersSent) reply(response, 500, { ok: false, message: squeezedLine(messageOf(error)) });
      else response.destroy();
    });
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      const address = server.address();
      resolve(typeof address === 'object' && address !== null ? address.port : 0);
    });
  });

  async function answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const header = (name: string) => {
      const value = request.headers[name];
      return Array.isArray(value) ? value[0] : value;
    };
    const refused = refusal(
      {
        method: request.method ?? 'GET',
        path: url.pathname,
        host: header('host'),
        origin: header('origin'),
        secFetchSite: header('sec-fetch-site'),
        contentType: header('content-type'),
        queryToken: url.searchParams.get('token'),
        headerToken: header('x-dogsled-token'),
      },
      { port, token },
    );
    if (refused !== null) {
      request.resume();
      response.writeHead(refused.status, { 'content-type': 'text/plain; charset=utf-8', ...HARDENING });
      response.end(`dogsled dash: ${refused.why}\n`);
      return;
    }
    const search = (url.searchParams.get('q') ?? '').slice(0, FIELD_MAX);
    if (url.pathname === '/') return page(response, search, request.method === 'HEAD');
    if (url.pathname === '/events') {
      const fresh = readers.size === 0 || state === undefined ? await read() : state;
      if (readers.size === 0) watching?.follow(dashJobFiles(paths, fresh));
      if (!readers.add(request, response, search, fresh))
        reply(response, 503, { ok: false, message: 'too many pages open on this server' });
      return;
    }
    try {
      const body = await jsonBody(request);
      const text = (key: string): string => {
        const value = body[key];
        if (typeof value !== 'string' || value === '' || value.length > FIELD_MAX)
          throw new DogsledError(`${key}: expected a string of at most ${FIELD_MAX} characters`);
        return value;
      };
      if (url.pathname === '/stop') {
        const outcome = await dashStop(options.io, text('ref'));
        reply(response, 200, { ok: true, message: stopText(outcome) });
      } else {
        const host = typeof body.host === 'string' && body.host !== '' ? text('host') : null;
        const closed = await dashClose(options.io, text('pane'), host);
        reply(response, 200, {
          ok: true,
          message: `closed ${closed.pane}${closed.pane_closed ? '' : ' (it was already gone)'}`,
        });
      }
    } catch (error) {
      if (!(error instanceof DogsledError)) throw error;
      reply(response, 409, { ok: false, message: squeezedLine(error.message, 400) });
    }
    // What the action changed reaches every page through the watch; one read now makes it sooner.
    void refresh().catch(() => undefined);
  }

  async function page(response: ServerResponse, search: string, head: boolean): Promise<void> {
    const fresh = readers.size === 0 || state === undefined ? await read() : state;
    const body = markup(pageBody(renderSections(fresh, search), search, fresh.now_ms));
    const text = pageWith(assets, body);
    response.writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': assets.policy,
      ...HARDENING,
    });
    response.end(head ? undefined : text);
  }

  const closed = new Promise<void>((resolve) => {
    const stop = () => {
      readers.close();
      void watching?.close();
      server.close(() => resolve());
      server.closeAllConnections();
    };
    if (options.signal.aborted) stop();
    else options.signal.addEventListener('abort', stop, { once: true });
  });
  return { url: `http://127.0.0.1:${port}/?token=${token}`, port, closed };
}

/** Headers on every answer: never cached, never framed, never sniffed, never a Referer with the token. */
const HARDENING = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-resource-policy': 'same-origin',
};

function reply(response: ServerResponse, status: number, body: { ok: boolean; message: string }): void {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...HARDENING });
  response.end(JSON.stringify(body));
}

/** The request's JSON object, at most BODY_MAX bytes. */
async function jsonBody(request: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > BODY_MAX) throw new DogsledError(`a request body over ${BODY_MAX} bytes`);
    chunks.push(chunk as Buffer);
  }
  try {
    const value: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    if (value !== null && typeof value === 'object' && !Array.isArray(value))
      return value as Record<string, unknown>;
  } catch {
    // Said below, as for any other shape.
  }
  throw new DogsledError('a request body that is not a JSON object');
}

/** A read that failed: the last state with the reason on top, or an empty page saying it. */
function failedRead(last: DashState | undefined, now: number, error: unknown): DashState {
  const problem = `reading the state: ${squeezedLine(messageOf(error), 400)}`;
  if (last !== undefined) return { ...last, problems: [problem, ...last.problems] };
  return {
    now_ms: now,
    hosts: [],
    boards: [],
    history: [],
    receipts: [],
    budget: [],
    budget_active: false,
    prices_as_of: '',
    problems: [problem],
  };
}
