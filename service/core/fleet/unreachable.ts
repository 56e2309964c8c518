// Why a peer could not be read, in the few words status shows (`unreachable: timeout`): one category
// from what OpenSSH printed, from a socket's error code, or from the transport's own deadline. Raw
// SSH text never becomes a category's wording; it stays for a debug log only.

export const UNREACHABLE_CATEGORIES = [
  'timeout',
  'connection refused',
  'auth',
  'host key',
  'no route',
  'remote command failed',
  /** An established connection closed under a request: whether the verb ran is unknown. */
  'connection lost',
  /** A bus peer whose key has not changed for 30 s (core/fleet/bus-rules.ts). */
  'stale',
  /** A bus peer while this host's service cannot reach the bus; its last snapshot is kept. */
  'bus down',
  /** A bus peer whose verbs nobody answers on its subject: its service is not on the bus now. */
  'no responder',
] as const;

export type UnreachableCategory = (typeof UNREACHABLE_CATEGORIES)[number];

/**
 * OpenSSH's own diagnostics (ssh(1) exits 255 with one of these on stderr), most specific first.
 * A changed key prints "REMOTE HOST IDENTIFICATION HAS CHANGED" and then "Host key verification
 * failed"; an unknown one in batch mode only the latter.
 */
const SSH_PATTERNS: ReadonlyArray<readonly [RegExp, UnreachableCategory]> = [
  [
    /Host key verification failed|REMOTE HOST IDENTIFICATION HAS CHANGED|No \S+ host key is known/i,
    'host key',
  ],
  [/Permission denied|Too many authentication failures|no more authentication methods/i, 'auth'],
  [/Connection refused/i, 'connection refused'],
  [/Connection timed out|Operation timed out|timed out during banner exchange/i, 'timeout'],
  [
    /No route to host|Network is unreachable|Could not resolve hostname|Name or service not known|nodename nor servname/i,
    'no route',
  ],
  [
    /Connection closed by|Connection reset by|kex_exchange_identification|Broken pipe|Connection to \S+ closed/i,
    'connection lost',
  ],
];

/** The category of an ssh(1) failure from its stderr, or undefined when it names none. */
export function sshFailureCategory(stderr: string): UnreachableCategory | undefined {
  for (const [pattern, category] of SSH_PATTERNS) {
    if (pattern.test(stderr)) return category;
  }
  return undefined;
}

/** Socket error codes (Node's `error.code`) of a TCP connect or a live connection. */
const SOCKET_CODES: Readonly<Record<string, UnreachableCategory>> = {
  ECONNREFUSED: 'connection refused',
  ETIMEDOUT: 'timeout',
  EHOSTUNREACH: 'no route',
  ENETUNREACH: 'no route',
  EHOSTDOWN: 'no route',
  ENOTFOUND: 'no route',
  EAI_AGAIN: 'no route',
  EAI_NONAME: 'no route',
  EADDRNOTAVAIL: 'no route',
  ECONNRESET: 'connection lost',
  EPIPE: 'connection lost',
  ECONNABORTED: 'connection lost',
};

export function socketErrorCategory(code: string | undefined): UnreachableCategory | undefined {
  return code === undefined ? undefined : SOCKET_CODES[code];
}

/**
 * A failure that does not pass by itself: the peer refuses our key (`auth`), or offers a key other
 * than the one on file, or none is on file (`host key`). Waiting for it is waiting for a person, so
 * work pinned to such a peer is refused at once with what to do; the other categories pass (a
 * restarted sshd, a route back, a thawed host) and are worth waiting for. `target` is what ssh is
 * given for the peer.
 */
export function lastingFailure(category: string | null, target: string): string | undefined {
  if (category === 'auth')
    return `unreachable: auth (it refuses our key): run \`ssh ${target}\` to review the key`;
  if (category === 'host key') {
    return `unreachable: host key (its key is not the one on file): run \`ssh ${target}\` to review the key`;
  }
  return undefined;
}
