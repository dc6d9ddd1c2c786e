import { describe, expect, it } from 'vitest';
import type { AttemptLedgerEntry, RequestLedgerEntry } from '../../../lambda/core/ledger/ledger-entry.js';
import { createRecentRequests } from '../../../lambda/core/status/recent-requests.js';
import { statusSnapshot } from '../../../lambda/core/status/status-snapshot.js';
import { createFakeClock } from '../../helpers/fake-clock.js';
import { attemptLine, requestLine } from '../../helpers/ledger-lines.js';

const attempt = (requestId: string, over: Partial<AttemptLedgerEntry> = {}) =>
  attemptLine({ requestId, latencyMs: 10, ...over });

const request = (requestId: string, over: Partial<RequestLedgerEntry> = {}) =>
  requestLine({
    requestId,
    latencyMs: 12,
    usage: { inputTokens: 1, outputTokens: 1 },
    costUsd: 0.5,
    ...over,
  });

describe('recent requests', () => {
  it('joins each request with its own attempts, newest first, and keeps exactly the last N', () => {
    const clock = createFakeClock(Date.parse('2026-12-01T00:00:00Z'));
    const recent = createRecentRequests(2, clock);
    recent.record(attempt('r1', { outcome: 'rate_limited', status: 429 }));
    recent.record(attempt('r2'));
    recent.record(attempt('r1', { attempt: 2, model: 'b', action: 'fallback' }));
    recent.record(request('r1', { attempts: 2 }));
    recent.record(request('r2'));
    recent.record(request('r3', { attempts: 0, reason: 'exhausted' }));
    const list = recent.list();
    expect(list.map((r) => r.requestId)).toEqual(['r3', 'r2']);
    expect(list[1]?.attempts.map((a) => a.model)).toEqual(['a']);
    expect(list[0]?.attempts).toEqual([]);
    expect(list[0]?.endedAt).toBe('2026-12-01T00:00:00.000Z');
  });

  it("shows the caller's x-request-id beside the gateway's id, null when it sent none", () => {
    const recent = createRecentRequests(5, createFakeClock(0));
    recent.record(attempt('r1'));
    recent.record(request('r1', { clientRequestId: 'trace-42' }));
    recent.record(request('r2'));
    expect(recent.list().map((r) => [r.requestId, r.clientRequestId])).toEqual([
      ['r2', null],
      ['r1', 'trace-42'],
    ]);
  });

  it('shows the trail and the continuation of a continued stream, null for any other', () => {
    const recent = createRecentRequests(5, createFakeClock(0));
    const continued = { from: 'a', atToken: 40, by: 'a' };
    recent.record(request('r1', { route: 'a:cut@40,a:continued', continued }));
    recent.record(request('r2', { route: 'a:200' }));
    const [plain, resumed] = recent.list();
    expect(resumed).toMatchObject({ route: 'a:cut@40,a:continued', continued });
    expect(plain).toMatchObject({ route: 'a:200', continued: null });
  });

  it('keeps the attempt trail of a request that fell back', () => {
    const recent = createRecentRequests(5, createFakeClock(0));
    recent.record(attempt('r1', { outcome: 'rate_limited', status: 429 }));
    recent.record(attempt('r1', { attempt: 2, model: 'b', action: 'fallback' }));
    recent.record(request('r1', { attempts: 2 }));
    expect(recent.list()[0]?.attempts.map((a) => `${a.model}:${a.status}:${a.action}`)).toEqual([
      'a:429:first',
      'b:200:fallback',
    ]);
  });

  it('adds up requests and spend per pipeline for every request, not only the ones still listed', () => {
    const recent = createRecentRequests(1, createFakeClock(0));
    recent.record(request('r1'));
    recent.record(request('r2', { costUsd: 0.25 }));
    recent.record(request('r3', { pipeline: 'q', costUsd: 0 }));
    expect(recent.spend()).toEqual([
      { pipeline: 'p', requests: 2, costUsd: 0.75 },
      { pipeline: 'q', requests: 1, costUsd: 0 },
    ]);
  });

  it('adds every ad-hoc chain to one row `adhoc`, so 10,000 chains cannot push a pipeline’s total out', () => {
    const recent = createRecentRequests(1, createFakeClock(0));
    recent.record(request('r0', { costUsd: 0.5 }));
    for (let i = 0; i < 10_001; i += 1)
      recent.record(request(`r${i + 1}`, { pipeline: `chain:(a*${i + 2}|b)`, costUsd: 0 }));
    expect(recent.spend()).toEqual([
      { pipeline: 'p', requests: 1, costUsd: 0.5 },
      { pipeline: 'adhoc', requests: 10_001, costUsd: 0 },
    ]);
  });
});

describe('status snapshot', () => {
  it('still shows pipelines, breakers and requests when the limits cannot be read, and says so', async () => {
    const snapshot = await statusSnapshot({
      gateway: { pipelines: async () => [], breakers: async () => [] },
      recent: createRecentRequests(5, createFakeClock(0)),
      limits: async () => {
        throw Object.assign(new Error('down'), { name: 'ResourceNotFoundException' });
      },
      clock: createFakeClock(0),
      refreshMs: 2_000,
    });
    expect(snapshot.limits).toEqual([]);
    expect(snapshot.limitsError).toBe('limits unreadable (ResourceNotFoundException)');
    expect(snapshot.refreshMs).toBe(2_000);
  });
});
