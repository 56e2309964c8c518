// Flag parsing for the `herdr` shim: `--flag value`, `--flag=value`, boolean flags, repeatable
// flags, positionals, and `--` ending flags. Any mistake is a UsageError: plain text, exit 2.

export class UsageError extends Error {}

/**
 * spec: { flags: { name: 'string' | 'bool' | 'multi' | 'int' | 'number' }, positionals?: [min, max] }
 * Returns { flags, positionals, rest } where rest holds everything after `--`.
 */
export function parseFlags(argv, spec) {
  const flags = {};
  const positionals = [];
  let rest = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      rest = argv.slice(i + 1);
      break;
    }
    if (!arg.startsWith('--') || arg === '--') {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq >= 0 ? arg.slice(2, eq) : arg.slice(2);
    const kind = spec.flags?.[name];
    if (!kind) throw new UsageError(`error: unexpected argument '--${name}' found`);
    if (kind === 'bool') {
      if (eq >= 0) throw new UsageError(`error: unexpected value for '--${name}'`);
      flags[name] = true;
      continue;
    }
    let value;
    if (eq >= 0) value = arg.slice(eq + 1);
    else {
      value = argv[i + 1];
      i += 1;
      if (value === undefined)
        throw new UsageError(`error: a value is required for '--${name}' but none was supplied`);
    }
    if (kind === 'int') {
      if (!/^\d+$/.test(value))
        throw new UsageError(`error: invalid value '${value}' for '--${name}': not a number`);
      flags[name] = Number(value);
    } else if (kind === 'number') {
      if (value.trim() === '' || !Number.isFinite(Number(value))) {
        throw new UsageError(`error: invalid value '${value}' for '--${name}': not a number`);
      }
      flags[name] = Number(value);
    } else if (kind === 'multi') flags[name] = [...(flags[name] ?? []), value];
    else flags[name] = value;
  }
  const [min, max] = spec.positionals ?? [0, 0];
  if (positionals.length < min) throw new UsageError('error: missing required argument');
  if (max !== Infinity && positionals.length > max) {
    throw new UsageError(`error: unexpected argument '${positionals[max]}' found`);
  }
  return { flags, positionals, rest };
}

/** `K=V` pairs (`--env`, `--token`, `--state-label`) to a map. */
export function pairs(list, flag) {
  const out = {};
  for (const item of list ?? []) {
    const eq = item.indexOf('=');
    if (eq <= 0) throw new UsageError(`error: invalid value '${item}' for '--${flag}': expected KEY=VALUE`);
    out[item.slice(0, eq)] = item.slice(eq + 1);
  }
  return out;
}

export function requireFlag(flags, name) {
  if (flags[name] === undefined)
    throw new UsageError(`error: the following required arguments were not provided: --${name}`);
  return flags[name];
}
