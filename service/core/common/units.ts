// Number formatting shared by refusal reasons and every renderer, so a value reads the same in
// status, place errors and the sidebar.

const GIB = 1024 ** 3;
const MIB = 1024 ** 2;

/** 3221225472 -> "3.0 GiB"; below 1 GiB -> "512 MiB". */
export function formatBytes(bytes: number): string {
  if (Math.abs(bytes) >= GIB) return `${(bytes / GIB).toFixed(1)} GiB`;
  return `${Math.round(bytes / MIB)} MiB`;
}

/** Free cores and similar quantities: one decimal, no "-0.0". */
export function formatCores(value: number): string {
  return coresWith(value, 1);
}

/** The most decimals a compared pair is given before it falls back to the exact values. */
const MAX_DECIMALS = 4;

/**
 * A measured value and the threshold it failed, written so they read differently: one decimal
 * when that tells them apart, more when it does not ("cpu: 0.49 free cores, needs 0.50", never
 * "0.5, needs 0.5"), and the exact numbers when even four decimals agree.
 */
export function distinctPair(
  value: number,
  needed: number,
  format: (value: number, decimals: number) => string,
): [string, string] {
  for (let decimals = 1; decimals <= MAX_DECIMALS; decimals++) {
    const pair: [string, string] = [format(value, decimals), format(needed, decimals)];
    if (pair[0] !== pair[1]) return pair;
  }
  return [String(value), String(needed)];
}

/** Cores with `decimals` decimals, no "-0.0". */
export function coresWith(value: number, decimals: number): string {
  const text = value.toFixed(decimals);
  return /^-0\.?0*$/.test(text) ? text.slice(1) : text;
}

/** Two byte counts that read differently: GiB or MiB when that tells them apart, else exact bytes. */
export function distinctBytes(value: number, needed: number): [string, string] {
  const pair: [string, string] = [formatBytes(value), formatBytes(needed)];
  return pair[0] !== pair[1] ? pair : [`${value} bytes`, `${needed} bytes`];
}
