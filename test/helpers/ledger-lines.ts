/**
 * Ledger lines for tests of what reads the ledger (metrics, spans, the status page): one
 * successful first attempt and its request line, each field overridable.
 */
import type { AttemptLedgerEntry, RequestLedgerEntry } from '../../lambda/core/ledger/ledger-entry.js';

export const attemptLine = (over: Partial<AttemptLedgerEntry> = {}): AttemptLedgerEntry => ({
  type: 'attempt',
  requestId: 'r1',
  pipeline: 'p',
  attempt: 1,
  tier: 1,
  model: 'a',
  provider: 'fake',
  action: 'first',
  outcome: 'ok',
  status: 200,
  phase: 'before_output',
  latencyMs: 100,
  ...over,
});

export const requestLine = (over: Partial<RequestLedgerEntry> = {}): RequestLedgerEntry => ({
  type: 'request',
  requestId: 'r1',
  pipeline: 'p',
  reason: 'success',
  attempts: 1,
  route: 'a:200',
  latencyMs: 100,
  usage: { inputTokens: 0, outputTokens: 0 },
  costUsd: 0,
  stream: false,
  ...over,
});
