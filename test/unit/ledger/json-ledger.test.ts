import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AttemptLedgerEntry, RequestLedgerEntry } from '../../../lambda/core/ledger/ledger-entry.js';
import { createJsonLedger } from '../../../lambda/wiring/json-lines.js';

const AT = new Date('2026-12-01T04:10:00.123Z');

afterEach(() => vi.useRealTimers());

describe('the JSON ledger line', () => {
  const attempt: AttemptLedgerEntry = {
    type: 'attempt',
    requestId: 'req_1',
    pipeline: 'chat',
    attempt: 1,
    tier: 1,
    model: 'gpt-mini',
    provider: 'openai',
    action: 'first',
    outcome: 'rate_limited',
    status: 429,
    phase: 'before_output',
    latencyMs: 12,
    usage: undefined,
    costUsd: undefined,
    retryAfterMs: 5000,
  };
  const request: RequestLedgerEntry = {
    type: 'request',
    requestId: 'req_1',
    pipeline: 'chat',
    reason: 'success',
    attempts: 2,
    model: 'gemini-flash',
    route: 'gpt-mini:429,gemini-flash:200',
    latencyMs: 40,
    usage: { inputTokens: 3, outputTokens: 1 },
    costUsd: 0,
    stream: false,
  };

  it.each([
    ['an attempt with absent fields', attempt],
    ['a request', request],
  ])('writes %s with the time first, then every present field in order', (_label, entry) => {
    vi.useFakeTimers({ now: AT });
    const lines: string[] = [];
    createJsonLedger((line) => lines.push(line))(entry);
    expect(lines).toEqual([JSON.stringify({ time: AT.toISOString(), ...entry })]);
    expect(Object.keys(JSON.parse(lines[0] as string))[0]).toBe('time');
  });
});
