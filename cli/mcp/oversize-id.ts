// The id of a line too long to read: its bytes stream past once, never held, and this finds the
// `id` member of the top-level object wherever it stands (the TypeScript SDK's client writes it
// last, after the params), so the answer names the request the client waits on. Nested `id`s and
// text inside strings are skipped by tracking depth and strings; JSON's structural characters are
// ASCII, so UTF-8 bytes can be scanned one by one. An id longer than 1 KiB, or not a string or a safe
// integer, is not echoed (the answer's id is null, as JSON-RPC says when the id cannot be known).

import { type RequestId, usableId } from './jsonrpc-line.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COLON = 0x3a;
const COMMA = 0x2c;
/** The longest key or id token kept while scanning. */
const TOKEN_MAX = 1024;

type Expect = 'object' | 'key' | 'colon' | 'value' | 'after-value' | 'done';

export class OversizeIdScanner {
  private expect: Expect = 'object';
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** Bytes of the top-level key or `id` value being read; null when not capturing. */
  private token: number[] | null = null;
  private tokenIsKey = false;
  private key: string | null = null;
  private found: RequestId | null = null;

  /** The id found so far (the last `id` member wins, as with JSON.parse). */
  get id(): RequestId | null {
    return this.found;
  }

  feed(bytes: Uint8Array): void {
    const length = bytes.length;
    // The next quote and backslash at or after i, each looked up again only once i passes it.
    let quote = -1;
    let backslash = -1;
    const next = (byte: number, from: number) => {
      const at = bytes.indexOf(byte, from);
      return at === -1 ? length : at;
    };
    for (let i = 0; i < length; i++) {
      if (this.expect === 'done') return;
      if (this.inString && this.token === null) {
        // Inside a string nobody keeps (the bulk of a long line): only its end matters.
        if (this.escaped) {
          this.escaped = false;
          continue;
        }
        if (quote < i) quote = next(QUOTE, i);
        if (backslash < i) backslash = next(BACKSLASH, i);
        i = Math.min(quote, backslash);
        if (i === length) return;
      }
      this.step(bytes[i] as number);
    }
  }

  private step(byte: number): void {
    if (this.inString) {
      this.keep(byte);
      if (this.escaped) this.escaped = false;
      else if (byte === BACKSLASH) this.escaped = true;
      else if (byte === QUOTE) {
        this.inString = false;
        if (this.depth === 1) this.endToken();
      }
      return;
    }
    if (isSpace(byte)) {
      if (this.depth === 1 && this.expect === 'value' && this.token !== null && this.token.length > 0) {
        this.endToken();
      }
      return;
    }
    if (this.expect === 'object') {
      if (byte !== OPEN_OBJECT) this.expect = 'done';
      else {
        this.depth = 1;
        this.expect = 'key';
      }
      return;
    }
    if (this.depth > 1) {
      if (byte === QUOTE) this.inString = true;
      else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) this.depth++;
      else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
        this.depth--;
        if (this.depth === 1) this.expect = 'after-value';
      }
      return;
    }
    // depth 1: the members of the top-level object.
    if (this.expect === 'value' && this.token !== null && (byte === COMMA || byte === CLOSE_OBJECT)) {
      this.endToken();
    }
    switch (byte) {
      case QUOTE:
        this.inString = true;
        if (this.expect === 'key') this.startToken(true);
        else if (this.expect === 'value') this.startToken(false);
        this.keep(byte);
        return;
      case COLON:
        if (this.expect === 'colon') this.expect = 'value';
        return;
      case COMMA:
        this.expect = 'key';
        return;
      case CLOSE_OBJECT:
        this.expect = 'done';
        return;
      case OPEN_OBJECT:
      case OPEN_ARRAY:
        // An object or array is no id: a later `id` replaces an earlier one, as with JSON.parse.
        if (this.expect === 'value' && this.key === 'id') this.found = null;
        this.depth++;
        this.token = null;
        return;
      default:
        // A number or a literal: an id's digits are kept; true, false and null are not ids.
        if (this.expect === 'value' && this.token === null && this.key === 'id') this.startToken(false);
        this.keep(byte);
    }
  }

  private startToken(isKey: boolean): void {
    this.tokenIsKey = isKey;
    this.token = isKey || this.key === 'id' ? [] : null;
  }

  private keep(byte: number): void {
    if (this.token === null) return;
    if (this.token.length >= TOKEN_MAX) this.token = null;
    else this.token.push(byte);
  }

  private endToken(): void {
    const token = this.token;
    this.token = null;
    if (this.tokenIsKey) {
      this.key = token === null ? null : parseToken(token);
      this.expect = 'colon';
      return;
    }
    this.expect = 'after-value';
    if (this.key !== 'id') return;
    // A second id that cannot be echoed undoes the first, as JSON.parse would keep the second.
    this.found = token === null ? null : usableId(parseJson(token));
  }
}

function isSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;
}

function parseToken(bytes: number[]): string | null {
  const value = parseJson(bytes);
  return typeof value === 'string' ? value : null;
}

function parseJson(bytes: number[]): unknown {
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(bytes)));
  } catch {
    return undefined;
  }
}
