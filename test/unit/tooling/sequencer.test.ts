// The suite's order: longest first across projects, so that on a few cores no long file is left to
// run on alone at the end (vitest's own order ran the slow project last).

import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TestSpecification, Vitest } from 'vitest/node';
import { LongestFirst } from '../../helpers/sequencer.js';

const ROOT = '/repo';

function spec(file: string, project: string, groupOrder = 0): TestSpecification {
  return {
    moduleId: join(ROOT, file),
    project: { name: project, config: { sequence: { groupOrder } } },
  } as never;
}

function sequencer(
  last: Record<string, { duration: number; failed: boolean }> = {},
  sizes: Record<string, number> = {},
) {
  const ctx = {
    config: { root: ROOT },
    cache: {
      getFileTestResults: (key: string) => last[key],
      getFileStats: (key: string) => (key in sizes ? { size: sizes[key] } : undefined),
    },
  };
  return new LongestFirst(ctx as unknown as Vitest);
}

const names = (specs: TestSpecification[]) =>
  specs.map((s) => `${s.project.name}:${s.moduleId.slice(ROOT.length + 1)}`);

describe('LongestFirst', () => {
  const files = [
    spec('test/unit/core/a.test.ts', 'unit'),
    spec('test/integration/cli/b.test.ts', 'integration'),
    spec('test/integration/agents/c.test.ts', 'slow'),
    spec('test/e2e/d.test.ts', 'slow'),
  ];

  it('on a clean clone starts end-to-end files, then the slow project, integration, unit', async () => {
    expect(names(await sequencer().sort([...files]))).toEqual([
      'slow:test/e2e/d.test.ts',
      'slow:test/integration/agents/c.test.ts',
      'integration:test/integration/cli/b.test.ts',
      'unit:test/unit/core/a.test.ts',
    ]);
  });

  it('breaks ties by size, the larger file first', async () => {
    const two = [
      spec('test/integration/x.test.ts', 'integration'),
      spec('test/integration/y.test.ts', 'integration'),
    ];
    const sorted = await sequencer({}, { 'integration:test/integration/y.test.ts': 40_000 }).sort(two);
    expect(names(sorted)).toEqual([
      'integration:test/integration/y.test.ts',
      'integration:test/integration/x.test.ts',
    ]);
  });

  it("takes the last run's durations over guesses, failed files first, across projects", async () => {
    const sorted = await sequencer({
      'unit:test/unit/core/a.test.ts': { duration: 90_000, failed: false },
      'integration:test/integration/cli/b.test.ts': { duration: 1_000, failed: true },
      'slow:test/e2e/d.test.ts': { duration: 5_000, failed: false },
    }).sort([...files]);
    expect(names(sorted)).toEqual([
      'integration:test/integration/cli/b.test.ts',
      'unit:test/unit/core/a.test.ts',
      'slow:test/integration/agents/c.test.ts',
      'slow:test/e2e/d.test.ts',
    ]);
  });

  it('keeps sequence.groupOrder above all', async () => {
    const sorted = await sequencer().sort([
      spec('test/e2e/late.test.ts', 'slow', 1),
      spec('test/unit/early.test.ts', 'unit', 0),
    ]);
    expect(names(sorted)).toEqual(['unit:test/unit/early.test.ts', 'slow:test/e2e/late.test.ts']);
  });
});
