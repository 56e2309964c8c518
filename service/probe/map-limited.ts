// Bounded parallel map: independent checkout and transcript reads use at most `width` workers, so a
// tick with many panes never forks more git processes at once than the host has CPUs.

export async function mapLimited<T, R>(
  items: readonly T[],
  width: number,
  work: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T, index);
    }
  };
  const workers = Array.from({ length: Math.max(1, Math.min(width, items.length)) }, worker);
  await Promise.all(workers);
  return results;
}
