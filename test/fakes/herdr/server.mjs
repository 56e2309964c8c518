#!/usr/bin/env node
// Fake Herdr server for tests: `node server.mjs --socket PATH [--version 0.9.5] [--settle-ms 3000]
// [--detect-ms 150] [--prompt-delay-ms 300] [--stall-ms 5000] [--shell /bin/sh]`.
// Unix socket (mode 0600), one newline-delimited JSON request per connection (first line only,
// within 5 s, at most 1 MiB), then the response and close. It exits when its parent dies (stdin
// pipe closes or the parent pid changes) and kills every pane process on the way out.
import { chmodSync, existsSync, fstatSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Model } from './lib/model.mjs';
import { configDir } from './lib/plugins.mjs';
import { readStat } from './lib/procfs.mjs';
import { ApiError, failure, Params, parseRequest, RequestError, success } from './lib/protocol.mjs';
import { createHandlers, STREAMING } from './methods/index.mjs';

const MAX_LINE = 1 << 20;
const FIRST_LINE_TIMEOUT_MS = 5000;
const CALL_LOG_LIMIT = 5000;

const { values } = parseArgs({
  options: {
    socket: { type: 'string' },
    version: { type: 'string' },
    'settle-ms': { type: 'string', default: '3000' },
    'detect-ms': { type: 'string', default: '150' },
    'prompt-delay-ms': { type: 'string', default: '300' },
    'stall-ms': { type: 'string', default: '5000' },
    shell: { type: 'string' },
  },
});
if (!values.socket) {
  process.stderr.write('usage: server.mjs --socket PATH [--version V] [--settle-ms N]\n');
  process.exit(2);
}

function normaliseVersion(text) {
  const parts = text.replace(/^v/, '').split('.');
  while (parts.length < 3) parts.push('0');
  return parts.slice(0, 3).join('.');
}

const socketPath = values.socket;
/** The version of the server at socketPath, for the shim: written before it listens. */
const versionFile = `${socketPath}.version`;
const version = normaliseVersion(values.version ?? process.env.FAKE_HERDR_VERSION ?? '0.9.5');
const model = new Model({
  version,
  protocol: 20,
  socketPath,
  binPath: join(import.meta.dirname, 'bin', 'herdr'),
  configDir: configDir(process.env),
  shell: values.shell ?? process.env.FAKE_HERDR_SHELL ?? '/bin/sh',
  rows: 50,
  cols: 200,
  env: { ...process.env, FAKE_HERDR_VERSION: version },
  settleMs: Number(values['settle-ms']),
  detectMs: Number(values['detect-ms']),
  promptDelayMs: Number(values['prompt-delay-ms']),
  stallMs: Number(values['stall-ms']),
});

const calls = [];
const failures = new Map();
const notifications = [];
const handlers = createHandlers(model, { calls, failures, notifications, shutdown });

function send(socket, envelope) {
  if (!socket.destroyed) socket.end(`${JSON.stringify(envelope)}\n`);
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Applies a `_fake.fail_next` injection; returns true when it answered (or dropped) the call. */
async function inject(socket, id, injection) {
  if (injection.delayMs) await sleep(injection.delayMs);
  if (socket.destroyed) return true;
  if (injection.malformed === 'close') socket.destroy();
  else if (injection.malformed === 'garbage') socket.end('this is not json\n');
  else if (injection.malformed === 'truncated')
    socket.end(JSON.stringify(success(id, { type: 'ok' })).slice(0, 12));
  else if (injection.code)
    send(socket, failure(id, injection.code, injection.message ?? `injected ${injection.code}`));
  else return false;
  return true;
}

async function handleLine(socket, line) {
  let request;
  try {
    request = parseRequest(line);
  } catch (error) {
    send(socket, failure('', 'invalid_request', error.message));
    return;
  }
  const { id, method, params } = request;
  if (!method.startsWith('_fake.')) {
    calls.push({ id, method, params, at: Date.now() });
    if (calls.length > CALL_LOG_LIMIT) calls.splice(0, calls.length - CALL_LOG_LIMIT);
  }
  const injection = failures.get(method)?.shift();
  if (injection && (await inject(socket, id, injection))) return;
  const handler = Object.hasOwn(handlers, method) ? handlers[method] : undefined;
  if (!handler) {
    send(socket, failure('', 'invalid_request', `invalid request: unknown variant \`${method}\``));
    return;
  }
  const abort = new AbortController();
  socket.once('close', () => abort.abort());
  try {
    const result = await handler(new Params(method, params), { id, socket, signal: abort.signal });
    if (result !== STREAMING) send(socket, success(id, result));
  } catch (error) {
    if (error instanceof RequestError) send(socket, failure('', 'invalid_request', error.message));
    else if (error instanceof ApiError) send(socket, failure(id, error.code, error.message));
    else {
      process.stderr.write(`fake herdr: ${method} failed: ${error?.stack ?? error}\n`);
      send(socket, failure(id, 'internal_error', String(error?.message ?? error)));
    }
  }
}

const server = createServer({ allowHalfOpen: true }, (socket) => {
  let buffer = '';
  let handled = false;
  const timer = setTimeout(() => socket.destroy(), FIRST_LINE_TIMEOUT_MS);
  socket.setEncoding('utf8');
  socket.on('error', () => {});
  const take = (line) => {
    handled = true;
    clearTimeout(timer);
    handleLine(socket, line);
  };
  socket.on('data', (chunk) => {
    if (handled) return;
    buffer += chunk;
    const newline = buffer.indexOf('\n');
    if (newline >= 0) take(buffer.slice(0, newline));
    else if (buffer.length > MAX_LINE) socket.destroy();
  });
  socket.on('end', () => {
    if (!handled && buffer !== '') take(buffer);
    else if (!handled) socket.destroy();
  });
  socket.on('close', () => clearTimeout(timer));
});

let stopping = false;
function shutdown() {
  if (stopping) return;
  stopping = true;
  model.agents.stop();
  model.killAll();
  server.close();
  for (const path of [socketPath, versionFile]) {
    try {
      unlinkSync(path);
    } catch {
      // already gone
    }
  }
  process.exit(0);
}

process.on('uncaughtException', (error) => process.stderr.write(`fake herdr: ${error?.stack ?? error}\n`));
process.on('unhandledRejection', (error) => process.stderr.write(`fake herdr: ${error?.stack ?? error}\n`));
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
process.on('SIGHUP', shutdown);
process.on('exit', () => model.killAll());

// Lifelines: a piped stdin that closes, or a parent that is gone (we were re-parented).
if (fstatSync(0).isFIFO()) {
  process.stdin.on('end', shutdown).on('close', shutdown).resume();
}
const parent = process.ppid;
setInterval(() => {
  if (readStat(process.pid)?.ppid !== parent) shutdown();
}, 500).unref();

if (existsSync(socketPath)) unlinkSync(socketPath);
// The shim (bin/herdr) reads this server's version here instead of pinging it for `machine list`.
writeFileSync(versionFile, `${version}\n`);
server.listen(socketPath, () => {
  chmodSync(socketPath, 0o600);
  model.agents.start();
  process.stdout.write(`fake herdr ${version} listening on ${socketPath}\n`);
});
