// lazySchema: a schema is built on its first use, once, and behaves as the schema it stands for:
// parses, messages, composition (inside other lazy schemas) and inferred types are unchanged.
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { lazySchema } from '../../../service/state/engine/lazy-schema.js';
import '../../../service/state/engine/zod-messages.js';

describe('lazySchema', () => {
  it('builds nothing until first used, then builds once', () => {
    let builds = 0;
    const Count = lazySchema(() => {
      builds += 1;
      return z.int().check(z.nonnegative());
    });
    const Row = lazySchema(() => {
      builds += 1;
      return z.looseObject({ n: Count, tags: z.array(z.string()) });
    });
    expect(builds).toBe(0);
    expect(Row.safeParse({ n: 2, tags: ['a'], extra: true })).toEqual({
      success: true,
      data: { n: 2, tags: ['a'], extra: true },
    });
    expect(builds).toBe(2);
    Row.safeParse({ n: 3, tags: [] });
    expect(builds).toBe(2);
  });

  it('reports the same issues as the schema built at once', () => {
    const eager = z.looseObject({ id: z.string().check(z.minLength(1)), ms: z.nullable(z.int()) });
    const lazy = lazySchema(() =>
      z.looseObject({ id: z.string().check(z.minLength(1)), ms: z.nullable(z.int()) }),
    );
    for (const value of [{ id: '', ms: 1.5 }, { id: 'x' }, 'text', null, { id: 'x', ms: null }]) {
      expect(JSON.stringify(lazy.safeParse(value))).toBe(JSON.stringify(eager.safeParse(value)));
    }
  });

  it('composes: pick, arrays, unions and instanceof see the built schema', () => {
    const Job = lazySchema(() => z.looseObject({ id: z.string(), cwd: z.string(), pid: z.int() }));
    const Summary = lazySchema(() => z.pick(Job, { id: true, cwd: true }));
    const List = lazySchema(() => z.array(z.union([Summary, z.literal('none')])));
    expect(List.safeParse([{ id: 'j', cwd: '/' }, 'none']).success).toBe(true);
    expect(List.safeParse([{ id: 'j' }]).success).toBe(false);
    expect(Job instanceof z.ZodMiniObject).toBe(true);
    expect('_zod' in Job).toBe(true);
    const eagerJob = z.looseObject({ id: z.string(), cwd: z.string(), pid: z.int() });
    const parsed: z.infer<typeof Summary> = z.parse(Summary, { id: 'j', cwd: '/', pid: 'x' });
    expect(parsed).toEqual(
      z.parse(z.pick(eagerJob, { id: true, cwd: true }), { id: 'j', cwd: '/', pid: 'x' }),
    );
  });
});
