import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSqliteChainOverrides } from '../../../lambda/overrides/sqlite-chain-overrides.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const file = () => {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-overrides-'));
  dirs.push(dir);
  return join(dir, 'overrides.db');
};

describe('the local override store (serve --console)', () => {
  it('numbers each write as a new version and keeps its description, newest first', async () => {
    let now = 1_000;
    const store = createSqliteChainOverrides(':memory:', () => now);
    expect(await store.put('p', 'a', 'first')).toBe(1);
    now = 2_000;
    expect(await store.put('p', 'b', 'second')).toBe(2);
    expect(await store.get('p')).toBe('b');
    expect(await store.history('p')).toEqual([
      expect.objectContaining({ version: 2, chain: 'b', description: 'second', modified: new Date(2_000) }),
      expect.objectContaining({ version: 1, chain: 'a', description: 'first', modified: new Date(1_000) }),
    ]);
    expect(await store.get('q')).toBeUndefined();
  });

  it('survives a restart: a second store on the same file reads what the first wrote', async () => {
    const path = file();
    const first = createSqliteChainOverrides(path, () => 0);
    await first.put('p', 'b', 'x');
    first.close();
    const second = createSqliteChainOverrides(path, () => 0);
    expect(await second.get('p')).toBe('b');
    second.close();
  });

  it('deletes the override with its history, as SSM does, and says whether there was one', async () => {
    const store = createSqliteChainOverrides(':memory:', () => 0);
    await store.put('p', 'a');
    expect(await store.delete('p')).toBe(true);
    expect(await store.delete('p')).toBe(false);
    expect(await store.history('p')).toEqual([]);
    expect(await store.put('p', 'c')).toBe(1);
  });

  it('rolls back by writing the previous different value as a new version, with the given description', async () => {
    const store = createSqliteChainOverrides(':memory:', () => 0);
    await store.put('p', 'a');
    await store.put('p', 'b');
    const result = await store.rollback('p', { description: (to) => `back to ${to.version}` });
    expect(result).toMatchObject({ from: { version: 2 }, to: { version: 1, chain: 'a' }, version: 3 });
    expect((await store.current('p'))?.description).toBe('back to 1');
  });

  it('keeps the last 100 versions of a pipeline', async () => {
    const store = createSqliteChainOverrides(':memory:', () => 0);
    for (let i = 1; i <= 101; i++) await store.put('p', `v${i}`);
    const versions = (await store.history('p')).map((v) => v.version);
    expect(versions).toHaveLength(100);
    expect(versions.at(-1)).toBe(2);
  });
});
