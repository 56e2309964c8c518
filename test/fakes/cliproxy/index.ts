// A fake CLIProxy management API on loopback HTTPS, for the quota collector's tests: a test CA and
// a server certificate for 127.0.0.1 made with openssl at start, the routes the collector uses
// (auth-files, api-call, quota/fetch) answering from per-account scripts, every request recorded,
// and at each request a scan of every process's argv and environment for the management key.

import { execFile } from 'node:child_process';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface Answer {
  status: number;
  /** JSON-encoded unless it is a string, which is sent as is. */
  body: unknown;
}

export interface FakeAccount {
  auth_index: string;
  provider: string;
  email?: string;
  label?: string;
  name?: string;
  disabled?: boolean;
  supports_quota?: boolean;
  id_token?: { chatgpt_account_id?: string };
  /** The upstream answer api-call relays (Claude and Codex): status_code and body. */
  usage?: Answer;
  /** The quota/fetch answer (other providers). */
  quota?: Answer;
}

export interface RecordedRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  body: unknown;
}

export interface FakeCliproxy {
  origin: string;
  /** The test CA (PEM) and its file: what the collector is told to trust. */
  ca: string;
  caPath: string;
  requests: RecordedRequest[];
  /** Processes whose argv or environment held the key during any request: `pid: where`. */
  keySightings: string[];
  /**
   * Whether each request scans every process for the key (true unless a test turns it off). A scan
   * reads two /proc files of every process on the machine, some 0.1 s of CPU: a test that does not
   * assert on `keySightings` turns it off.
   */
  scanForKey: boolean;
  accounts: FakeAccount[];
  /** Replaces the auth-files answer (a failed listing); null restores the accounts list. */
  authFiles: Answer | null;
  /** While set, each auth-files request waits for it before answering. */
  hold: Promise<void> | null;
  /** Resolves once `n` auth-files requests have arrived. */
  listed: (n: number) => Promise<void>;
  close: () => Promise<void>;
}

export interface FakeOptions {
  dir: string;
  key: string;
  accounts?: FakeAccount[];
}

export async function startFakeCliproxy(options: FakeOptions): Promise<FakeCliproxy> {
  const cert = await makeCertificates(options.dir);
  const requests: RecordedRequest[] = [];
  const keySightings: string[] = [];
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const fake: Omit<FakeCliproxy, 'origin' | 'close'> = {
    ca: cert.ca,
    caPath: cert.caPath,
    requests,
    keySightings,
    scanForKey: true,
    accounts: options.accounts ?? [],
    authFiles: null,
    hold: null,
    listed: (n) =>
      new Promise((resolve) => {
        if (listings() >= n) resolve();
        else waiters.push({ n, resolve });
      }),
  };
  const listings = (): number => requests.filter((r) => r.path.endsWith('/auth-files')).length;

  const server: Server = createServer({ key: cert.key, cert: cert.cert }, async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: unknown;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      body = text;
    }
    const path = new URL(req.url ?? '/', 'https://x').pathname;
    requests.push({ method: req.method ?? '', path, authorization: req.headers.authorization, body });
    if (fake.scanForKey) keySightings.push(...(await processesHolding(options.key)));
    for (const waiter of waiters.filter((w) => listings() >= w.n)) waiter.resolve();
    const send = (answer: Answer): void => {
      const payload = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(payload);
    };
    if (req.headers.authorization !== `Bearer ${options.key}`) {
      send({ status: 401, body: { error: 'invalid management key' } });
      return;
    }
    const auth = (body as { auth_index?: string } | undefined)?.auth_index;
    const account = fake.accounts.find((a) => a.auth_index === auth);
    if (req.method === 'GET' && path === '/v0/management/auth-files') {
      if (fake.hold) await fake.hold;
      if (fake.authFiles) return send(fake.authFiles);
      return send({ status: 200, body: { files: fake.accounts.map(listing) } });
    }
    if (req.method === 'POST' && path === '/v0/management/api-call') {
      if (!account) return send({ status: 400, body: { error: 'auth not found' } });
      const usage = account.usage ?? { status: 200, body: {} };
      const upstream = typeof usage.body === 'string' ? usage.body : JSON.stringify(usage.body);
      return send({ status: 200, body: { status_code: usage.status, header: {}, body: upstream } });
    }
    if (req.method === 'POST' && path === '/v0/management/quota/fetch') {
      if (!account) return send({ status: 404, body: { error: 'auth not found' } });
      return send(
        account.quota ?? { status: 501, body: { error: 'no quota provider available for credential' } },
      );
    }
    send({ status: 404, body: { error: 'not found' } });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(fake, {
    origin: `https://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

/** What auth-files lists of an account: everything but its scripted answers. */
function listing(account: FakeAccount): Record<string, unknown> {
  const { usage: _usage, quota: _quota, ...rest } = account;
  return { type: account.provider, status: account.disabled ? 'disabled' : 'active', ...rest };
}

/** Every process (this test's included) whose argv or environment holds `needle`. */
export async function processesHolding(needle: string): Promise<string[]> {
  const found: string[] = [];
  for (const pid of (await readdir('/proc')).filter((name) => /^\d+$/.test(name))) {
    for (const file of ['cmdline', 'environ']) {
      const text = await readFile(join('/proc', pid, file), 'latin1').catch(() => '');
      if (text.includes(needle)) found.push(`${pid}: ${file}`);
    }
  }
  return found;
}

interface Certificates {
  ca: string;
  caPath: string;
  key: string;
  cert: string;
}

/** A throwaway CA and a server certificate signed by it for 127.0.0.1 and localhost. */
async function makeCertificates(dir: string): Promise<Certificates> {
  const at = (name: string): string => join(dir, name);
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  await run('openssl', [
    'req',
    '-x509',
    ...ec,
    '-keyout',
    at('ca.key'),
    '-out',
    at('ca.pem'),
    '-days',
    '2',
    '-subj',
    '/CN=dogsled test CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  await run('openssl', [
    'req',
    ...ec,
    '-keyout',
    at('server.key'),
    '-out',
    at('server.csr'),
    '-subj',
    '/CN=127.0.0.1',
  ]);
  await writeFile(
    at('server.ext'),
    'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n',
  );
  await run('openssl', [
    'x509',
    '-req',
    '-in',
    at('server.csr'),
    '-CA',
    at('ca.pem'),
    '-CAkey',
    at('ca.key'),
    '-CAcreateserial',
    '-out',
    at('server.pem'),
    '-days',
    '2',
    '-extfile',
    at('server.ext'),
  ]);
  return {
    ca: await readFile(at('ca.pem'), 'utf8'),
    caPath: at('ca.pem'),
    key: await readFile(at('server.key'), 'utf8'),
    cert: await readFile(at('server.pem'), 'utf8'),
  };
}
