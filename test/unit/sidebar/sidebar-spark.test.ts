// The busy sparkline as the app draws it: blessed-contrib's renderer on a fixed 0-100 scale, so an
// idle host stays low instead of being stretched to the full height, and a gap where no sample was.

import { describe, expect, it } from 'vitest';
import { drawSpark } from '../../../sidebar/model/spark.js';

const render = (numbers: number[], options: { min: number; max: number }) => {
  void options;
  return numbers.map(() => 'x').join('');
};

describe('drawSpark', () => {
  it("draws percents with blessed-contrib's renderer on a 0-100 scale, one cell each", async () => {
    const { createRequire } = await import('node:module');
    const here = createRequire(import.meta.url);
    const contrib = createRequire(here.resolve('blessed-contrib/lib/widget/sparkline.js'))('sparkline');
    expect(drawSpark(contrib, [0, 25, 50, 75, 100, null, 0])).toBe('▁▂▄▆█ ▁');
    expect(drawSpark(contrib, [3, 3, 3])).toBe('▁▁▁');
    expect(drawSpark(contrib, [100, 100])).toBe('██');
  });

  it('leaves the cells to the model when the renderer is missing, fails or draws another width', () => {
    expect(drawSpark(null, [1, 2])).toBeNull();
    expect(drawSpark(render, [])).toBeNull();
    expect(drawSpark(() => 'x', [1, 2])).toBeNull();
    expect(
      drawSpark(() => {
        throw new Error('boom');
      }, [1]),
    ).toBeNull();
    expect(drawSpark(render, [null, 5])).toBe(' x');
  });
});
