import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../lambda/config/switchyard-config.js';
import { sha256Hex } from '../../../lambda/http/caller-auth.js';
import { createReloadableAuth } from '../../../lambda/wiring/reloadable-auth.js';

const hash = sha256Hex('k');
/** A config with no providers or models: only its `auth` (and defaulted `schedules`) matter here. */
const config = (extra: Record<string, unknown> = {}) => parseConfig({ providers: {}, models: {}, ...extra });

describe('reloadable auth', () => {
  it('puts new keys, operator keys and readers in force at once', async () => {
    const auth = createReloadableAuth(config({ auth: { keys: { a: hash } } }));
    expect(auth.access().isOperator('b')).toBe(false);
    const outcome = auth.apply(config({ auth: { keys: { b: hash }, operatorKeys: ['b'] } }));
    expect(outcome).toEqual({ ok: true, keys: 1, operatorKeys: 1 });
    expect([...((await auth.callerKeys.hashes()) ?? new Map()).keys()]).toEqual(['b']);
    expect(auth.access().isOperator('b')).toBe(true);
  });

  it('refuses a reload that would turn authentication off, and keeps the keys in force', async () => {
    const auth = createReloadableAuth(config({ auth: { keys: { a: hash } } }));
    expect(auth.apply(config())).toMatchObject({ ok: false, reason: expect.stringMatching(/never turns/) });
    expect([...((await auth.callerKeys.hashes()) ?? new Map()).keys()]).toEqual(['a']);
  });

  it('may turn authentication on', async () => {
    const auth = createReloadableAuth(config());
    expect(await auth.callerKeys.hashes()).toBeUndefined();
    expect(auth.apply(config({ auth: { keys: {} } }))).toEqual({ ok: true, keys: 0, operatorKeys: 0 });
    expect((await auth.callerKeys.hashes())?.size).toBe(0);
  });
});
