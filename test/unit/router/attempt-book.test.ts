import { describe, expect, it } from 'vitest';
import type { AttemptSample } from '../../../lambda/core/breaker/breaker-state.js';
import type { Breakers } from '../../../lambda/core/breaker/breakers.js';
import type { ChatModel } from '../../../lambda/core/chat/chat-model.js';
import type { FailureClass } from '../../../lambda/core/failures/failure-class.js';
import { ProviderError } from '../../../lambda/core/failures/provider-error.js';
import type { LedgerEntry } from '../../../lambda/core/ledger/ledger-entry.js';
import { AttemptBook, type EndedAttempt } from '../../../lambda/core/router/attempt-book.js';
import type {
  AttemptRecord,
  RouteModel,
  RouteRequest,
  RouterDeps,
} from '../../../lambda/core/router/route-types.js';
import { createFakeClock } from '../../helpers/fake-clock.js';
import { uniformTimeouts } from '../../helpers/uniform-timeouts.js';

const START = 1_700_000_000_000;

/** A book over a request of pipeline `p`, with its ledger lines and breaker samples collected. */
function book(request: Partial<RouteRequest> = {}) {
  const clock = createFakeClock(START);
  const lines: LedgerEntry[] = [];
  const samples: Array<[string, AttemptSample]> = [];
  const breakers = {
    record: async (_pipeline: string, routeKey: string, sample: AttemptSample) => {
      samples.push([routeKey, sample]);
    },
  } as unknown as Breakers;
  const deps = { clock, breakers, ledger: (line: LedgerEntry) => lines.push(line) } as unknown as RouterDeps;
  const full: RouteRequest = {
    requestId: 'r1',
    pipeline: 'p',
    tiers: [],
    policy: { maxAttempts: 3, deadlineMs: 15_000, fallbackOnContextLength: false, substitution: 'allow' },
    stream: true,
    ...request,
  };
  const requestLines = () => lines.filter((l) => l.type === 'request');
  const attemptLines = () => lines.filter((l) => l.type === 'attempt');
  return { book: new AttemptBook(full, deps, START), clock, lines, requestLines, attemptLines, samples };
}

const ROUTE: RouteModel = { model: {} as ChatModel, timeouts: uniformTimeouts(10_000) };

function record(model: string, extra: Partial<AttemptRecord> = {}): AttemptRecord {
  return {
    attempt: 1,
    tier: 1,
    model,
    provider: 'acme',
    action: 'first',
    outcome: 'ok',
    latencyMs: 0,
    ...extra,
  };
}

function failure(
  failureClass: FailureClass,
  extra: Partial<ConstructorParameters<typeof ProviderError>[0]> = {},
) {
  return new ProviderError({ provider: 'acme', model: 'A', failureClass, message: 'failed', ...extra });
}

function ended(model: string, extra: Partial<EndedAttempt> = {}): EndedAttempt {
  return {
    record: record(model),
    route: ROUTE,
    routeKey: model,
    startedAt: START,
    phase: 'before_output',
    ...extra,
  };
}

describe('attempt book: a book made without capability skips', () => {
  it('ends a request with an empty trail, no unsupported routes on the failure or its request line', () => {
    const b = book();
    const result = b.book.finish('exhausted');

    expect(result.route).toBe('');
    expect(result.unsupported).toBeUndefined();
    expect(b.requestLines()).toHaveLength(1);
    expect(b.requestLines()[0]).not.toHaveProperty('unsupported');
  });
});

describe('attempt book: committed attempts and continuations', () => {
  it('names the first committed model on the request line even when a continuation by another model settles it', async () => {
    const b = book();
    const label = { from: 'A', atToken: 12, by: 'B' };
    b.book.commit({ record: record('A'), routeKey: 'A' });
    await b.book.record(ended('A', { phase: 'after_output', cutAt: 12 }));
    const continuation = record('B', { continuation: { from: 'A', atToken: 12 } });
    b.book.commit({ record: continuation, routeKey: 'B' }, label);
    await b.book.record({ ...ended('B', { phase: 'after_output' }), record: continuation });

    expect(b.book.route()).toBe('A:cut@12,B:continued');
    expect(b.requestLines()).toEqual([
      expect.objectContaining({ model: 'A', reason: 'success', continued: label }),
    ]);
  });

  it('marks a continuation as `continued` in the trail the moment it commits, a plain commit as 200', () => {
    const b = book();
    b.book.commit({ record: record('A'), routeKey: 'A' });
    b.book.commit({ record: record('B'), routeKey: 'B' }, { from: 'A', atToken: 3, by: 'B' });

    expect(b.book.route()).toBe('A:200,B:continued');
  });

  it('writes no `continued` on the request line of an answer no continuation took part in', async () => {
    const b = book();
    b.book.commit({ record: record('A'), routeKey: 'A' });
    await b.book.record(ended('A', { phase: 'after_output' }));

    expect(b.requestLines()).toEqual([expect.objectContaining({ model: 'A', reason: 'success' })]);
    expect(b.requestLines()[0]).not.toHaveProperty('continued');
  });

  it('times the request line from the request start, in ms', async () => {
    const b = book();
    b.book.commit({ record: record('A'), routeKey: 'A' });
    b.clock.advance(250);
    await b.book.record(ended('A', { phase: 'after_output' }));

    expect(b.requestLines()[0]).toMatchObject({ latencyMs: 250 });
  });
});

describe('attempt book: a broken stream that is not continued', () => {
  it('ends `partial` when the upstream broke it', () => {
    const b = book();
    b.book.commit({ record: record('A'), routeKey: 'A' });
    b.book.endBroken(failure('unavailable', { status: 500 }));

    expect(b.requestLines()).toEqual([
      expect.objectContaining({ reason: 'partial', failureClass: 'unavailable' }),
    ]);
  });

  it('ends `cancelled` when the caller went away', () => {
    const b = book();
    b.book.commit({ record: record('A'), routeKey: 'A' });
    b.book.endBroken(failure('cancelled'));

    expect(b.requestLines()).toEqual([
      expect.objectContaining({ reason: 'cancelled', failureClass: 'cancelled' }),
    ]);
  });
});

describe('attempt book: providers without a key (not_configured)', () => {
  it('names the setting per keyless provider on the failure, the first one named winning', async () => {
    const b = book();
    await b.book.record(ended('A', { error: failure('not_configured') }));
    await b.book.record(ended('B', { error: failure('not_configured', { setting: 'ACME_API_KEY' }) }));
    await b.book.record(ended('C', { error: failure('not_configured', { setting: 'OTHER_KEY' }) }));
    await b.book.record(
      ended('D', { error: failure('not_configured', { provider: 'zeta', model: 'D', setting: 'ZETA_KEY' }) }),
    );
    const result = b.book.finish('exhausted');

    expect(result.unconfigured).toEqual(
      new Map([
        ['acme', 'ACME_API_KEY'],
        ['zeta', 'ZETA_KEY'],
      ]),
    );
    expect(b.samples).toEqual([]);
  });

  it('carries no `unconfigured` on a failure whose attempts all had keys', async () => {
    const b = book();
    await b.book.record(
      ended('A', { error: failure('unavailable', { status: 500, setting: 'ACME_API_KEY' }) }),
    );
    const result = b.book.finish('exhausted');

    expect(result).not.toHaveProperty('unconfigured');
    expect(result.route).toBe('A:500');
  });
});

describe('attempt book: what an attempt line and breaker sample keep of a failure', () => {
  it('keeps the Retry-After hint of a failure before output, and drops one that came after output', async () => {
    const before = book();
    await before.book.record(
      ended('A', { error: failure('rate_limited', { status: 429, retryAfterMs: 5_000 }) }),
    );
    expect(before.attemptLines()[0]).toMatchObject({ retryAfterMs: 5_000 });
    expect(before.samples[0]?.[1].retryAfterMs).toBe(5_000);

    const after = book();
    after.book.commit({ record: record('A'), routeKey: 'A' });
    await after.book.record(
      ended('A', {
        phase: 'after_output',
        error: failure('rate_limited', { status: 429, retryAfterMs: 5_000 }),
      }),
    );
    expect(after.attemptLines()[0]?.retryAfterMs).toBeUndefined();
    expect(after.samples).toEqual([
      ['A', expect.objectContaining({ outcome: 'rate_limited', retryAfterMs: undefined })],
    ]);
  });

  it('marks only a probe attempt’s breaker sample as a probe', async () => {
    const b = book();
    await b.book.record(ended('A', { error: failure('unavailable', { status: 500 }) }));
    await b.book.record({ ...ended('B'), record: record('B', { recovery: 'probe' }) });

    expect(b.samples).toEqual([
      ['A', { at: START, outcome: 'unavailable', retryAfterMs: undefined }],
      ['B', { at: START, outcome: 'ok', retryAfterMs: undefined, probe: true }],
    ]);
  });
});

describe('attempt book: a request that ends without an answer', () => {
  it('puts routes refused for capacity after the last attempt in the trail, and the refusal on the failure', async () => {
    const b = book();
    await b.book.record(ended('A', { error: failure('unavailable', { status: 503 }) }));
    const result = b.book.finish('exhausted', undefined, {
      refusal: { reason: 'full', retryAfterMs: 1_000 },
      skipped: [{ route: 'B', reason: 'full', until: '2023-11-14T22:13:21.000Z' }],
    });

    expect(result.route).toBe('A:503,!B:full');
    expect(result.capacity).toEqual({ reason: 'full', retryAfterMs: 1_000 });
    expect(b.requestLines()).toEqual([
      expect.objectContaining({ reason: 'exhausted', route: 'A:503,!B:full' }),
    ]);
  });

  it('carries no `capacity` when no route refused', () => {
    const result = book().book.finish('exhausted', undefined, { refusal: undefined, skipped: [] });

    expect(result).not.toHaveProperty('capacity');
  });

  it('with a deferred failure line, writes nothing until `conclude`, then the failure as it was', async () => {
    const b = book({ deferFailureLine: true });
    await b.book.record(ended('A', { error: failure('unavailable', { status: 500 }) }));
    const result = b.book.finish('exhausted');

    expect(b.requestLines()).toEqual([]);
    expect(result).toMatchObject({ ok: false, reason: 'exhausted', route: 'A:500' });
    result.conclude?.();
    expect(b.requestLines()).toEqual([
      expect.objectContaining({ reason: 'exhausted', failureClass: 'unavailable', route: 'A:500' }),
    ]);
    expect(b.requestLines()[0]).not.toHaveProperty('degraded');
  });

  it('with a deferred failure line, `conclude` with a last resort writes it as `last_resort` of that kind', async () => {
    const b = book({ deferFailureLine: true });
    await b.book.record(ended('A', { error: failure('unavailable', { status: 500 }) }));
    b.book.finish('exhausted').conclude?.('template');

    expect(b.requestLines()).toEqual([
      expect.objectContaining({ reason: 'last_resort', degraded: 'template', failureClass: 'unavailable' }),
    ]);
  });
});
