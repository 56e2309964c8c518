// Who may talk to the page's server: only this machine's browser, at the address the server printed,
// with the token of this run. A request is refused (403, one line) when its Host is not the server's
// own address (a DNS-rebinding page names its own host), when it comes from another origin or site
// (Origin, Sec-Fetch-Site), or without this run's token (in the URL, or for Stop and Close in a
// header, which a page elsewhere cannot send without asking first). Stop and Close are POSTs with
// JSON; every other request is a GET. Pure: the server passes the headers in.

export interface DashAddress {
  port: number;
  token: string;
}

export interface DashRequest {
  method: string;
  /** The path without the query. */
  path: string;
  host: string | undefined;
  origin: string | undefined;
  secFetchSite: string | undefined;
  contentType: string | undefined;
  /** `token` of the query. */
  queryToken: string | null;
  /** The `X-Dogsled-Token` header. */
  headerToken: string | undefined;
}

export interface Refusal {
  status: number;
  why: string;
}

/** The actions the page may ask for. */
export const ACTIONS = ['/stop', '/close'] as const;
const PAGES = ['/', '/events'];

/** The addresses the server answers to: the loopback address it listens on, and `localhost`. */
export function ownHosts(port: number): string[] {
  return [`127.0.0.1:${port}`, `localhost:${port}`];
}

/** Equal strings, compared in time that does not depend on where they differ. */
export function sameSecret(given: string, secret: string): boolean {
  let diff = given.length ^ secret.length;
  for (let i = 0; i < secret.length; i++) diff |= (given.charCodeAt(i) || 0) ^ secret.charCodeAt(i);
  return diff === 0;
}

/** Why the request is refused, or null when it may be answered. */
export function refusal(request: DashRequest, address: DashAddress): Refusal | null {
  const hosts = ownHosts(address.port);
  if (request.host === undefined || !hosts.includes(request.host.toLowerCase()))
    return { status: 403, why: 'refused: this server answers only at the address dogsled dash printed' };
  if (request.origin !== undefined && !hosts.some((host) => request.origin === `http://${host}`))
    return { status: 403, why: 'refused: a request from another origin' };
  const site = request.secFetchSite;
  if (site !== undefined && site !== 'same-origin' && site !== 'none')
    return { status: 403, why: 'refused: a request from another site' };
  const action = (ACTIONS as readonly string[]).includes(request.path);
  // A page's own POST always names its origin; a token in a header cannot be sent from elsewhere
  // without a preflight this server never grants.
  const token = action ? request.headerToken : (request.queryToken ?? undefined);
  if (token === undefined || !sameSecret(token, address.token))
    return { status: 403, why: 'refused: no token, or not this run’s (open the URL dogsled dash printed)' };
  if (action) {
    if (request.method !== 'POST') return { status: 405, why: 'Stop and Close are POST requests' };
    if (request.origin === undefined) return { status: 403, why: 'refused: an action without its origin' };
    if (!request.contentType?.toLowerCase().startsWith('application/json'))
      return { status: 415, why: 'Stop and Close take JSON' };
    return null;
  }
  if (request.method !== 'GET' && request.method !== 'HEAD') return { status: 405, why: 'only GET here' };
  if (!PAGES.includes(request.path)) return { status: 404, why: 'no such page' };
  return null;
}
