import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Sample } from '../../../service/core/placement/host-types.js';
import { SAMPLE_RETENTION_MS } from '../../../service/core/placement/samples.js';
import { appendSample } from '../../../service/daemon/publish/samples-log.js';
import { tempDir } from '../../helpers/tree.js';

const DAY = 86_400_000;
const NOW = 1_900_000_000_000;
let dir: string;
let file: string;

beforeEach(async () => {
  dir = await tempDir();
  file = join(dir, 'samples.jsonl');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function sample(ts_ms: number): Sample {
  return {
    ts_ms,
    cores: 2,
    busy: 0.5,
    load1: 1,
    memory: { total_bytes: 10, used_bytes: 5, free_bytes: 5 },
    pressure_level: null,
    disk: { total_bytes: 100, free_bytes: 50 },
    reservations: 0,
    live_agents: 0,
    active_agents: 0,
    free_cores: 1,
    eligible: true,
    reason: [],
  };
}

async function stamps(): Promise<number[]> {
  const text = await readFile(file, 'utf8');
  return text
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line).ts_ms);
}

describe('samples.jsonl', () => {
  it('appends one line per tick', async () => {
    await appendSample(file, sample(NOW), NOW);
    await appendSample(file, sample(NOW + 10_000), NOW + 10_000);
    expect(await stamps()).toEqual([NOW, NOW + 10_000]);
  });

  it('drops lines older than seven days on append', async () => {
    const old = [NOW - 8 * DAY, NOW - 7 * DAY - 1, NOW - 6 * DAY, NOW - DAY];
    await writeFile(file, old.map((ts) => JSON.stringify(sample(ts))).join('\n') + '\n');
    await appendSample(file, sample(NOW), NOW);
    const kept = await stamps();
    expect(kept).toEqual([NOW - 6 * DAY, NOW - DAY, NOW]);
    expect(kept.every((ts) => ts >= NOW - SAMPLE_RETENTION_MS)).toBe(true);
  });

  it('leaves a file whose oldest line is within seven days untouched but for the new line', async () => {
    const body = `${JSON.stringify(sample(NOW - 6 * DAY))}\n`;
    await writeFile(file, body);
    await appendSample(file, sample(NOW), NOW);
    expect(await readFile(file, 'utf8')).toBe(`${body}${JSON.stringify(sample(NOW))}\n`);
  });

  it('fences a torn last line from a crash instead of gluing the next line onto it', async () => {
    await writeFile(file, `${JSON.stringify(sample(NOW - 1000))}\n{"ts_ms": 17`);
    await appendSample(file, sample(NOW), NOW);
    const lines = (await readFile(file, 'utf8')).trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(JSON.parse(lines[2]!).ts_ms).toBe(NOW);
  });

  it('drops an unreadable first line by trimming', async () => {
    await writeFile(file, `garbage\n${JSON.stringify(sample(NOW - 1000))}\n`);
    await appendSample(file, sample(NOW), NOW);
    expect(await stamps()).toEqual([NOW - 1000, NOW]);
  });

  it('trims a week at a short interval, larger than any state file is read whole, a chunk at a time', async () => {
    // About 75 MiB: two days past the window at a few ticks a second, then the kept days; one torn
    // line far longer than any sample among them, and a last line without its newline.
    const line = (ts: number) => JSON.stringify(sample(ts));
    const old = line(NOW - 8 * DAY);
    const recent = line(NOW - DAY);
    const chunk = (text: string, count: number) => `${text}\n`.repeat(count);
    await writeFile(
      file,
      chunk(old, 150_000) +
        `{"ts_ms":${NOW - DAY},"torn":"${'x'.repeat(200_000)}\n` +
        chunk(recent, 150_000) +
        recent,
    );
    await appendSample(file, sample(NOW), NOW);
    const kept = await stamps();
    expect(kept).toHaveLength(150_002);
    expect(kept.slice(0, 3)).toEqual([NOW - DAY, NOW - DAY, NOW - DAY]);
    expect(kept.at(-1)).toBe(NOW);
  });
});
