import { describe, expect, it } from 'vitest';
import type { ActualUse } from '../../../lambda/core/admission/admission.js';
import { createSpendMeter } from '../../../lambda/core/admission/spend-meter.js';
import type {
  AttemptLedgerEntry,
  LedgerEntry,
  RequestLedgerEntry,
} from '../../../lambda/core/ledger/ledger-entry.js';

const attempt = (requestId: string, costUsd: number | undefined, tokens: number): AttemptLedgerEntry => ({
  type: 'attempt',
  requestId,
  pipeline: 'p',
  attempt: 1,
  tier: 1,
  model: 'a',
  provider: 'fake',
  action: 'first',
  outcome: 'ok',
  phase: 'before_output',
  latencyMs: 1,
  usage: { inputTokens: tokens, outputTokens: 0 },
  costUsd,
});
const request = (requestId: string): RequestLedgerEntry => ({
  type: 'request',
  requestId,
  pipeline: 'p',
  reason: 'success',
  attempts: 2,
  route: 'a:503,b:200',
  latencyMs: 2,
  usage: { inputTokens: 0, outputTokens: 0 },
  costUsd: 0,
  stream: false,
});

describe('spend meter', () => {
  it('sums every attempt of a request and reports once when its request line arrives', () => {
    const forwarded: LedgerEntry[] = [];
    const meter = createSpendMeter((e) => forwarded.push(e));
    const ended: ActualUse[] = [];
    meter.open('r1', (use) => ended.push(use));
    meter.sink(attempt('r1', 0.000_001, 7));
    meter.sink(attempt('other', 1, 100));
    meter.sink(attempt('r1', undefined, 3));
    meter.sink(request('r1'));
    meter.close('r1');
    expect(ended).toEqual([{ tokens: 10, costNano: 1_000 }]);
    expect(forwarded).toHaveLength(4);
    expect(meter.size()).toBe(0);
  });

  it('reports what was used when closed before any request line', () => {
    const meter = createSpendMeter(() => undefined);
    const ended: ActualUse[] = [];
    meter.open('r1', (use) => ended.push(use));
    meter.close('r1');
    meter.sink(request('r1'));
    expect(ended).toEqual([{ tokens: 0, costNano: 0 }]);
  });
});
