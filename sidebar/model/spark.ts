// The busy sparkline's cells from the percents the Hosts panel carries (Segment.spark), drawn by
// blessed-contrib's sparkline renderer, which the app loads and hands in (this module stays pure):
// on a fixed 0-100 scale, so an idle host stays low instead of being stretched to the full height,
// and a gap where a sample had no CPU figure.

/** blessed-contrib's `sparkline(numbers, {min, max})`: one block character per number. */
export type SparklineRenderer = (numbers: number[], options: { min: number; max: number }) => string;

/** The cells, or null (the model's blanks stay) when there is no renderer or it misbehaves. */
export function drawSpark(
  render: SparklineRenderer | null,
  values: ReadonlyArray<number | null>,
): string | null {
  if (!render || values.length === 0) return null;
  try {
    const drawn = [
      ...render(
        values.map((v) => v ?? 0),
        { min: 0, max: 100 },
      ),
    ];
    if (drawn.length !== values.length) return null;
    return drawn.map((cell, i) => (values[i] === null ? ' ' : cell)).join('');
  } catch {
    return null;
  }
}
