// Envelopes and request validation. Herdr deserialises a request line as one tagged enum, so an
// unparseable line, an unknown method, an omitted `params` or a missing/mistyped field all fail the
// same way: `invalid_request` with an EMPTY id. Errors raised by a handler echo the request id.
// Optional fields accept null like serde's Option and are read as absent.

export class ApiError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

/** A request that does not deserialise: answered with id "". */
export class RequestError extends Error {}

export function success(id, result) {
  return { id, result };
}

export function failure(id, code, message) {
  return { id, error: { code, message } };
}

export const AGENT_STATUSES = ['idle', 'working', 'blocked', 'done', 'unknown'];
export const REPORT_STATES = ['idle', 'working', 'blocked', 'unknown'];
export const READ_SOURCES = ['visible', 'recent', 'recent_unwrapped', 'detection'];

function typeName(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/** Typed access to `params`; every getter throws RequestError on a wrong shape. */
export class Params {
  constructor(method, raw) {
    this.method = method;
    this.raw = raw;
  }

  fail(key, what) {
    throw new RequestError(`invalid request: ${this.method}: field \`${key}\`: ${what}`);
  }

  has(key) {
    return this.raw[key] !== undefined && this.raw[key] !== null;
  }

  #get(key, required) {
    const value = this.raw[key];
    if (value === undefined || value === null) {
      if (required) this.fail(key, 'missing field');
      return undefined;
    }
    return value;
  }

  str(key) {
    return this.optStr(key, undefined, true);
  }

  optStr(key, fallback, required = false) {
    const value = this.#get(key, required);
    if (value === undefined) return fallback;
    if (typeof value !== 'string') this.fail(key, `expected a string, got ${typeName(value)}`);
    return value;
  }

  bool(key, fallback = false) {
    const value = this.#get(key, false);
    if (value === undefined) return fallback;
    if (typeof value !== 'boolean') this.fail(key, `expected a boolean, got ${typeName(value)}`);
    return value;
  }

  optUint(key, fallback) {
    const value = this.#get(key, false);
    if (value === undefined) return fallback;
    if (!Number.isInteger(value) || value < 0) this.fail(key, `expected an unsigned integer`);
    return value;
  }

  num(key) {
    return this.optNum(key, undefined, true);
  }

  optNum(key, fallback, required = false) {
    const value = this.#get(key, required);
    if (value === undefined) return fallback;
    if (typeof value !== 'number') this.fail(key, `expected a number, got ${typeName(value)}`);
    return value;
  }

  enumOf(key, values) {
    return this.optEnum(key, values, undefined, true);
  }

  optEnum(key, values, fallback, required = false) {
    const value = this.#get(key, required);
    if (value === undefined) return fallback;
    if (typeof value !== 'string' || !values.includes(value)) {
      this.fail(key, `unknown variant \`${String(value)}\`, expected one of ${values.join(', ')}`);
    }
    return value;
  }

  strArray(key, required = false) {
    const value = this.#get(key, required);
    if (value === undefined) return [];
    if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) {
      this.fail(key, 'expected an array of strings');
    }
    return value;
  }

  enumArray(key, values) {
    const items = this.strArray(key);
    for (const item of items) if (!values.includes(item)) this.fail(key, `unknown variant \`${item}\``);
    return items;
  }

  boolArray(key) {
    const value = this.#get(key, true);
    if (!Array.isArray(value) || value.some((item) => typeof item !== 'boolean')) {
      this.fail(key, 'expected an array of booleans');
    }
    return value;
  }

  /** A map of string values (`env`, `state_labels`); nullable values when `allowNull`. */
  strMap(key, { required = false, allowNull = false } = {}) {
    const value = this.#get(key, required);
    if (value === undefined) return undefined;
    if (typeName(value) !== 'object') this.fail(key, `expected a map, got ${typeName(value)}`);
    for (const [name, item] of Object.entries(value)) {
      if (typeof item === 'string' || (allowNull && item === null)) continue;
      this.fail(`${key}.${name}`, `expected a string${allowNull ? ' or null' : ''}`);
    }
    return value;
  }

  object(key, required = false) {
    const value = this.#get(key, required);
    if (value === undefined) return undefined;
    if (typeName(value) !== 'object') this.fail(key, `expected an object, got ${typeName(value)}`);
    return value;
  }

  array(key, required = false) {
    const value = this.#get(key, required);
    if (value === undefined) return [];
    if (!Array.isArray(value)) this.fail(key, `expected an array, got ${typeName(value)}`);
    return value;
  }
}

/** Parses one request line; throws RequestError for anything that is not a request envelope. */
export function parseRequest(line) {
  let value;
  try {
    value = JSON.parse(line);
  } catch (error) {
    throw new RequestError(`invalid request: ${error.message}`);
  }
  if (typeName(value) !== 'object') throw new RequestError('invalid request: expected an object');
  if (typeof value.id !== 'string') throw new RequestError('invalid request: missing field `id`');
  if (typeof value.method !== 'string') throw new RequestError('invalid request: missing field `method`');
  if (value.params === undefined) throw new RequestError('invalid request: missing field `params`');
  if (typeName(value.params) !== 'object')
    throw new RequestError('invalid request: `params` must be an object');
  return { id: value.id, method: value.method, params: value.params };
}

/** Drops undefined fields so optional fields are omitted, never null. */
export function compact(record) {
  const out = {};
  for (const [key, value] of Object.entries(record)) if (value !== undefined) out[key] = value;
  return out;
}
