import { describe, expect, it } from 'vitest';
import { type AdmissionStoreFailure, createAdmission } from '../../../lambda/core/admission/admission.js';
import type { AdmissionStore } from '../../../lambda/core/admission/admission-store.js';
import { admissionSchema } from '../../../lambda/core/catalog/admission-config-schema.js';
import { createMemoryAdmissionStore } from '../../../lambda/stores/memory-admission-store.js';
import { createFakeClock } from '../../helpers/fake-clock.js';

const RESERVATION = { inputChars: 0, maxOutputTokens: 100, price: { inputPerMTok: 0, outputPerMTok: 10 } };

/** A store that works until `broken` is set, then throws on every call. */
function breakableStore() {
  const clock = createFakeClock();
  const inner = createMemoryAdmissionStore(clock);
  const state = { broken: false };
  const guard = <T>(call: () => Promise<T>) =>
    state.broken ? Promise.reject(Object.assign(new Error('down'), { name: 'TimeoutError' })) : call();
  const store: AdmissionStore = {
    read: (...args) => guard(() => inner.read(...args)),
    take: (...args) => guard(() => inner.take(...args)),
    add: (...args) => guard(() => inner.add(...args)),
  };
  return { store, state, clock };
}

function admissionWith(limits: Record<string, unknown>, onStoreFailure?: Record<string, string>) {
  const { store, state, clock } = breakableStore();
  const failures: AdmissionStoreFailure[] = [];
  const settings = admissionSchema.parse({ keys: { k: limits }, onStoreFailure });
  const admission = createAdmission({
    store,
    clock,
    settings: async () => settings,
    onStoreFailure: (f) => failures.push(f),
  });
  const admit = () => admission.admit({ keyName: 'k', pipeline: undefined, reservation: RESERVATION });
  return { admission, admit, state, failures };
}

describe('admission when its store fails', () => {
  it('admits past a rate limit by default (fail-open) and counts the failure', async () => {
    const { admit, state, failures } = admissionWith({ requestsPerMinute: 1 });
    state.broken = true;
    expect((await admit()).ok).toBe(true);
    expect((await admit()).ok).toBe(true);
    expect(failures.map((f) => [f.kind, f.policy, f.phase])).toEqual([
      ['requests', 'open', 'admit'],
      ['requests', 'open', 'admit'],
    ]);
  });

  it('refuses under a spend cap by default (fail-closed) as unavailable, retrying in a second', async () => {
    const { admit, state, failures } = admissionWith({ usdPerDay: 1 });
    state.broken = true;
    const outcome = await admit();
    expect(outcome.ok === false && outcome.refusal).toMatchObject({
      reason: 'unavailable',
      limit: { field: 'admission.keys.k.usdPerDay' },
      resetAt: 1_700_000_001_000,
    });
    expect(failures.map((f) => f.policy)).toEqual(['closed']);
  });

  it('follows the configured policy of each limit type', async () => {
    const { admit, state } = admissionWith(
      { usdPerDay: 1, requestsPerMinute: 5 },
      { spend: 'open', requests: 'closed' },
    );
    state.broken = true;
    const outcome = await admit();
    expect(outcome.ok === false && outcome.refusal.limit.kind).toBe('requests');
  });

  it('counts a settlement that cannot be written, and does not throw', async () => {
    const { admission, admit, state, failures } = admissionWith({ usdPerDay: 1 });
    const outcome = await admit();
    if (!outcome.ok) throw new Error('refused');
    state.broken = true;
    await admission.settle(outcome.ticket, { tokens: 0, costNano: 5 });
    expect(failures.map((f) => [f.kind, f.phase])).toEqual([['spend', 'settle']]);
  });
});

describe('spend use', () => {
  it('reports how full a spend cap is after each admission, and 1 on a budget refusal', async () => {
    const settings = admissionSchema.parse({ keys: { k: { usdPerDay: 0.002 } } });
    const shares: number[] = [];
    const admission = createAdmission({
      store: createMemoryAdmissionStore(createFakeClock()),
      clock: createFakeClock(),
      settings: async () => settings,
      onStoreFailure: () => undefined,
      onSpendUse: (_limit, share) => shares.push(share),
    });
    // Each reserves 100 output tokens at $10 per million: $0.001, half the cap.
    for (let i = 0; i < 3; i += 1)
      await admission.admit({ keyName: 'k', pipeline: undefined, reservation: RESERVATION });
    expect(shares).toEqual([0.5, 1, 1]);
  });
});
