import { describe, expect, it } from 'vitest';
import type { AdmissionStore } from '../../../lambda/core/admission/admission-store.js';
import { tableRestoringAdmissionStore } from '../../../lambda/stores/table-restoring-admission-store.js';

const missing = () =>
  Object.assign(new Error('Requested resource not found'), { name: 'ResourceNotFoundException' });
const SLOT = { counter: 'key:alice:spend', bucket: 'day:2026-12-01', expiresAt: 0 };

/** A store whose every call fails with `error` until `healed` is set. */
function failingStore(error: () => Error) {
  const state = { healed: false };
  const store: AdmissionStore = {
    read: async () => {
      if (!state.healed) throw error();
      return new Map();
    },
    take: async (_slot, amount) => {
      if (!state.healed) throw error();
      return amount;
    },
    add: async () => {
      if (!state.healed) throw error();
    },
  };
  return { store, state };
}

describe('table-restoring admission store', () => {
  it('restores a missing table once however many calls notice, still failing the calls that noticed', async () => {
    const { store, state } = failingStore(missing);
    let restores = 0;
    let finish: () => void = () => {};
    const wrapped = tableRestoringAdmissionStore(store, {
      restore: () =>
        new Promise<void>((resolve) => {
          restores += 1;
          finish = () => {
            state.healed = true;
            resolve();
          };
        }),
    });
    const calls = await Promise.allSettled([
      wrapped.take(SLOT, 1, 10),
      wrapped.read('c', 'b', 0),
      wrapped.add(SLOT, 1),
    ]);
    expect(calls.every((c) => c.status === 'rejected')).toBe(true);
    expect(restores).toBe(1);
    finish();
    await new Promise((r) => setTimeout(r, 0));
    expect(await wrapped.take(SLOT, 1, 10)).toBe(1);
  });

  it('restores nothing for another store error (a throttle, a timeout)', async () => {
    const { store } = failingStore(() =>
      Object.assign(new Error('slow down'), { name: 'ThrottlingException' }),
    );
    let restores = 0;
    const wrapped = tableRestoringAdmissionStore(store, {
      restore: async () => {
        restores += 1;
      },
    });
    await expect(wrapped.take(SLOT, 1, 10)).rejects.toThrow('slow down');
    expect(restores).toBe(0);
  });

  it('tries again on the next missing-table error once a restoration failed', async () => {
    const { store } = failingStore(missing);
    const outcomes: unknown[] = [];
    const wrapped = tableRestoringAdmissionStore(store, {
      restore: async () => {
        throw Object.assign(new Error('no'), { name: 'AccessDeniedException' });
      },
      onRestore: (o) => outcomes.push(o),
    });
    await expect(wrapped.add(SLOT, 1)).rejects.toThrow();
    await new Promise((r) => setTimeout(r, 0));
    await expect(wrapped.add(SLOT, 1)).rejects.toThrow();
    await new Promise((r) => setTimeout(r, 0));
    expect(outcomes).toEqual([
      { ok: false, error: 'AccessDeniedException' },
      { ok: false, error: 'AccessDeniedException' },
    ]);
  });
});
