// The CLIProxy quota collector: lists CLIProxy's credentials and reads each enabled one's quota,
// Claude and Codex through api-call (CLIProxy puts the credential's own token into the upstream
// request), every other provider CLIProxy marks supports_quota through quota/fetch with its
// auth_index, so a new provider needs no change here. One account's failure is that account's
// error rows; only a failure to list the credentials fails the collection (the caller then keeps
// the last good snapshot and backs off).

import {
  accountErrorRows,
  accountLabel,
  bucketRows,
  CLAUDE_WINDOWS,
  CODEX_WINDOWS,
  claudeRows,
  codexRows,
  distinctAccounts,
  fetchErrorRow,
  poolName,
  type QuotaRow,
  type QuotaSnapshot,
  TEXT_LIMITS,
} from '../core/quota/quota-rows.js';
import { squeezedLine } from '../core/text/clean.js';
import { ManagementError, type ManagementSession } from './cliproxy.js';

/** Claude's usage endpoint (Anthropic OAuth; undocumented, used by Claude Code itself). */
export const CLAUDE_USAGE_URL = 'https://api.anthropic.com/api/oauth/usage';
/** Codex's usage endpoint (ChatGPT backend; undocumented, used by the Codex CLI). */
export const CODEX_USAGE_URL = 'https://chatgpt.com/backend-api/wham/usage';
/** Accounts read at once: enough to overlap round trips, few enough to stay under CLIProxy's limits. */
const PARALLEL = 4;

interface Credential {
  pool: string;
  account: string;
  authIndex: string | null;
  supportsQuota: boolean;
  chatgptAccountId: string | null;
}

export interface CollectOptions {
  now: () => number;
  /** This host's name: the snapshot's source. */
  hostname: string;
  /** The whole collection's deadline. */
  signal: AbortSignal;
}

export async function collectQuota(
  session: ManagementSession,
  options: CollectOptions,
): Promise<QuotaSnapshot> {
  const listed = await session.call('GET', 'auth-files', undefined, options.signal);
  const files = (listed as { files?: unknown } | null)?.files;
  if (!Array.isArray(files)) throw new ManagementError('auth-files: the answer has no files list', 200);
  const credentials = credentialsOf(files);
  const rows: QuotaRow[][] = new Array(credentials.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < credentials.length) {
      const index = next++;
      rows[index] = await readAccount(session, credentials[index] as Credential, options);
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL, credentials.length) }, worker));
  // Grouped by pool, then account (each account's windows in the provider's order): the file and
  // every view read the same way whatever order CLIProxy listed the credentials in.
  const pools = rows.flat().sort((a, b) => compare(a.pool, b.pool) || compare(a.account, b.account));
  return {
    version: 1,
    fetched_ms: options.now(),
    source: squeezedLine(options.hostname, TEXT_LIMITS.source),
    pools,
  };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The enabled credentials whose quota can be read, labelled, each account distinct within its pool. */
function credentialsOf(files: readonly unknown[]): Credential[] {
  const found: Array<Omit<Credential, 'account'> & { label: string }> = [];
  for (const value of files) {
    if (value === null || typeof value !== 'object') continue;
    const file = value as Record<string, unknown>;
    if (file.disabled === true || file.status === 'disabled') continue;
    const provider = typeof file.provider === 'string' && file.provider !== '' ? file.provider : file.type;
    const pool = poolName(typeof provider === 'string' ? provider : '');
    const supportsQuota = file.supports_quota === true;
    if (pool !== 'claude' && pool !== 'codex' && !supportsQuota) continue;
    const idToken = file.id_token as { chatgpt_account_id?: unknown } | undefined;
    found.push({
      pool,
      label: accountLabel(file),
      authIndex: typeof file.auth_index === 'string' && file.auth_index !== '' ? file.auth_index : null,
      supportsQuota,
      chatgptAccountId: typeof idToken?.chatgpt_account_id === 'string' ? idToken.chatgpt_account_id : null,
    });
  }
  const accounts = distinctAccounts(found.map((c) => ({ pool: c.pool, account: c.label })));
  return found.map(({ label: _label, ...credential }, i) => ({
    ...credential,
    account: accounts[i] as string,
  }));
}

async function readAccount(
  session: ManagementSession,
  credential: Credential,
  options: CollectOptions,
): Promise<QuotaRow[]> {
  const { pool, account, authIndex } = credential;
  const windows = pool === 'claude' ? CLAUDE_WINDOWS : pool === 'codex' ? CODEX_WINDOWS : null;
  if (authIndex === null) {
    return windows
      ? accountErrorRows(pool, account, windows, 'CLIProxy lists no auth_index')
      : [fetchErrorRow(pool, account, 'CLIProxy lists no auth_index')];
  }
  try {
    if (windows === null) {
      const answer = await session.call('POST', 'quota/fetch', { auth_index: authIndex }, options.signal);
      return bucketRows(pool, account, answer, options.now());
    }
    const answer = await usage(session, credential, authIndex, options.signal);
    return pool === 'claude'
      ? claudeRows(account, answer, options.now())
      : codexRows(account, answer, options.now());
  } catch (error) {
    // The whole collection ran out of time: that is the collection's failure, not this account's.
    if (options.signal.aborted) throw error;
    const why = error instanceof Error ? error.message : String(error);
    return windows ? accountErrorRows(pool, account, windows, why) : [fetchErrorRow(pool, account, why)];
  }
}

/** The provider's usage answer, fetched by CLIProxy with the credential's own token. */
async function usage(
  session: ManagementSession,
  credential: Credential,
  authIndex: string,
  signal: AbortSignal,
): Promise<unknown> {
  const claude = credential.pool === 'claude';
  const header: Record<string, string> = claude
    ? { Authorization: 'Bearer $TOKEN$', 'anthropic-beta': 'oauth-2025-04-20', Accept: 'application/json' }
    : { Authorization: 'Bearer $TOKEN$', Accept: 'application/json' };
  if (!claude && credential.chatgptAccountId) header['ChatGPT-Account-Id'] = credential.chatgptAccountId;
  const request = {
    auth_index: authIndex,
    method: 'GET',
    url: claude ? CLAUDE_USAGE_URL : CODEX_USAGE_URL,
    header,
  };
  const answer = (await session.call('POST', 'api-call', request, signal)) as {
    status_code?: unknown;
    body?: unknown;
  } | null;
  const status = typeof answer?.status_code === 'number' ? answer.status_code : 0;
  // Upstream bodies are never quoted: they are the provider's, and may echo anything.
  if (status < 200 || status > 299) throw new Error(`usage: HTTP ${status || '?'}`);
  if (typeof answer?.body !== 'string') throw new Error('usage: no body');
  try {
    return JSON.parse(answer.body);
  } catch {
    throw new Error('usage: not JSON');
  }
}
