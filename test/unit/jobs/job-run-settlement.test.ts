import { describe, expect, it } from 'vitest';
import type { Admission } from '../../../lambda/core/admission/admission.js';
import { createSpendMeter } from '../../../lambda/core/admission/spend-meter.js';
import type { Catalog } from '../../../lambda/core/catalog/catalog.js';
import type { Target } from '../../../lambda/core/gateway/target.js';
import { jobRunAdmission } from '../../../lambda/wiring/job-run-admission.js';
import { requestLine } from '../../helpers/ledger-lines.js';

/** What a `POST /v1/jobs` kept for the job's first run: one spend hold. */
const RESERVATION = {
  holds: [
    {
      limit: { scope: 'key', name: 'k', kind: 'spend', cap: 1e9, field: 'admission.keys.k.usdPerDay' },
      slot: { counter: 'key:k:spend', bucket: 'd', expiresAt: 1 },
      amount: 100,
      after: 100,
    },
  ],
  reserved: { tokens: 0, costNano: 100 },
};

/** An admission whose settlement is written when the test says so. */
function slowSettlement() {
  let release: () => void = () => {};
  const written = new Promise<void>((resolve) => {
    release = resolve;
  });
  const events: string[] = [];
  const admission = {
    settle: async () => {
      await written;
      events.push('settlement written');
    },
  } as unknown as Admission;
  return { admission, release, events };
}

describe('job run admission', () => {
  it("ends a run only once its settlement is written, so the worker's invocation never ends with it under way", async () => {
    const { admission, release, events } = slowSettlement();
    const meter = createSpendMeter(() => {});
    const runs = jobRunAdmission(admission, meter, {} as Catalog);
    const admitted = await runs.admit({
      jobId: 'job-1',
      target: {} as Target,
      request: { model: 'p', messages: [] },
      keyName: 'k',
      reservation: RESERVATION,
    });
    if (!admitted.ok) throw new Error('refused');
    meter.sink(requestLine({ requestId: 'job-1' }));
    const ended = admitted.end().then(() => events.push('run ended'));
    await new Promise((r) => setTimeout(r, 20));
    expect(events).toEqual([]);
    release();
    await ended;
    expect(events).toEqual(['settlement written', 'run ended']);
  });
});
