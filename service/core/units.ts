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
  const text = value.toFixed(1);
  return text === '-0.0' ? '0.0' : text;
}

/** One decimal, so a value just under a threshold never prints as the threshold itself. */
export function formatPercent(value: number): string {
  return `${value.toFixed(1)}%`;
}
