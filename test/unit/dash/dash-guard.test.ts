// Who the page's server answers: only its own address, its own origin or none, and this run's token
// (in the URL for the page and its events, in a header for Stop and Close, which must be POSTs of
// JSON that name their origin). Anything else is refused with a status and one line.
import { describe, expect, it } from 'vitest';
import { type DashRequest, refusal, sameSecret } from '../../../dash/guard.js';

const ADDRESS = { port: 4321, token: 'tok_abcdefghijklmnop' };
const page = (over: Partial<DashRequest> = {}): DashRequest => ({
  method: 'GET',
  path: '/',
  host: '127.0.0.1:4321',
  origin: undefined,
  secFetchSite: undefined,
  contentType: undefined,
  queryToken: ADDRESS.token,
  headerToken: undefined,
  ...over,
});
const action = (over: Partial<DashRequest> = {}): DashRequest =>
  page({
    method: 'POST',
    path: '/stop',
    origin: 'http://127.0.0.1:4321',
    secFetchSite: 'same-origin',
    contentType: 'application/json',
    queryToken: null,
    headerToken: ADDRESS.token,
    ...over,
  });

describe('the page and its events', () => {
  it('are answered at the printed address or localhost, with the token, typed in or from the page', () => {
    expect(refusal(page(), ADDRESS)).toBeNull();
    expect(refusal(page({ host: 'LOCALHOST:4321', secFetchSite: 'none' }), ADDRESS)).toBeNull();
    expect(refusal(page({ path: '/events', origin: 'http://localhost:4321' }), ADDRESS)).toBeNull();
  });

  it.each([
    ['no token', page({ queryToken: null }), 403, 'no token'],
    ['another token', page({ queryToken: 'tok_abcdefghijklmnoq' }), 403, 'no token'],
    ['a prefix of the token', page({ queryToken: 'tok_abc' }), 403, 'no token'],
    ['the token in a header only', page({ queryToken: null, headerToken: ADDRESS.token }), 403, 'no token'],
    ['a rebinding host name', page({ host: 'evil.example:4321' }), 403, 'only at the address'],
    ['another port', page({ host: '127.0.0.1:4322' }), 403, 'only at the address'],
    ['no Host header', page({ host: undefined }), 403, 'only at the address'],
    ['another origin', page({ origin: 'http://evil.example' }), 403, 'another origin'],
    ['an opaque origin', page({ origin: 'null' }), 403, 'another origin'],
    ['https on the same host', page({ origin: 'https://127.0.0.1:4321' }), 403, 'another origin'],
    ['another site', page({ secFetchSite: 'cross-site' }), 403, 'another site'],
    ['a sibling site', page({ secFetchSite: 'same-site' }), 403, 'another site'],
    ['a POST to the page', page({ method: 'POST' }), 405, 'only GET'],
    ['a path of no page', page({ path: '/etc/passwd' }), 404, 'no such page'],
  ])('refuses %s', (_what, request, status, why) => {
    const refused = refusal(request, ADDRESS);
    expect(refused?.status).toBe(status);
    expect(refused?.why).toContain(why);
  });
});

describe('Stop and Close', () => {
  it('are answered as a POST of JSON from the page, with the token in its header', () => {
    expect(refusal(action(), ADDRESS)).toBeNull();
    expect(
      refusal(action({ path: '/close', contentType: 'application/json; charset=utf-8' }), ADDRESS),
    ).toBeNull();
  });

  it.each([
    ['the token in the URL only', action({ queryToken: ADDRESS.token, headerToken: undefined }), 403],
    ['no origin', action({ origin: undefined }), 403],
    ['another origin', action({ origin: 'http://evil.example' }), 403],
    ['a form post', action({ contentType: 'application/x-www-form-urlencoded' }), 415],
    ['a GET', action({ method: 'GET' }), 405],
  ])('refuses %s', (_what, request, status) => {
    expect(refusal(request, ADDRESS)?.status).toBe(status);
  });
});

describe('the token comparison', () => {
  it('is equality, whatever the lengths', () => {
    expect(sameSecret('abc', 'abc')).toBe(true);
    expect(sameSecret('abd', 'abc')).toBe(false);
    expect(sameSecret('abcd', 'abc')).toBe(false);
    expect(sameSecret('', 'abc')).toBe(false);
    expect(sameSecret('ab', 'abc')).toBe(false);
  });
});
