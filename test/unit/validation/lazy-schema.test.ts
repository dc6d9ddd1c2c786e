import { describe, expect, expectTypeOf, it } from 'vitest';
import * as z from 'zod';
import { lazySchema, once } from '../../../lambda/core/lazy-schema.js';

const eager = () => z.strictObject({ name: z.string().min(1), count: z.number().int().default(1) });

describe('a lazy schema', () => {
  it('is not built at all until first used, and built once however often it is used', () => {
    let builds = 0;
    const schema = lazySchema(() => {
      builds += 1;
      return eager();
    });
    expect(builds).toBe(0);
    schema.parse({ name: 'a' });
    schema.safeParse({ name: 'b' });
    expect(builds).toBe(1);
  });

  it('parses, fills defaults and reports issues exactly as the schema it stands for', () => {
    const lazy = lazySchema(eager);
    expect(lazy.parse({ name: 'a' })).toEqual(eager().parse({ name: 'a' }));
    for (const bad of [{ name: '' }, { name: 'a', count: 1.5 }, { name: 'a', extra: true }, 'text']) {
      expect(lazy.safeParse(bad).error?.issues).toEqual(eager().safeParse(bad).error?.issues);
    }
  });

  it('composes inside other schemas, extends, and is recognised as the schema class', () => {
    const lazy = lazySchema(eager);
    const outer = z.strictObject({ inner: lazy.optional(), list: z.array(lazy) });
    expect(outer.safeParse({ list: [{ name: '' }] }).error?.issues[0]?.path).toEqual(['list', 0, 'name']);
    expect(lazy.extend({ more: z.boolean() }).parse({ name: 'a', more: true })).toEqual({
      name: 'a',
      count: 1,
      more: true,
    });
    expect(lazy).toBeInstanceOf(z.ZodObject);
    expect(Object.keys(lazy.shape)).toEqual(['name', 'count']);
  });

  it('has the type of the schema it stands for', () => {
    const lazy = lazySchema(eager);
    expectTypeOf<z.infer<typeof lazy>>().toEqualTypeOf<{ name: string; count: number }>();
  });
});

describe('once', () => {
  it('builds its value at the first call only', () => {
    let builds = 0;
    const value = once(() => {
      builds += 1;
      return { n: builds };
    });
    expect(builds).toBe(0);
    expect(value()).toBe(value());
    expect(builds).toBe(1);
  });
});
