/**
 * A small, faithful model of LiteLLM's Router defaults, for comparison: per-deployment cooldown
 * (LiteLLM `router_utils/cooldown_handlers.py`, "v2" logic), simple-shuffle selection, retries
 * inside a model group, then fallback to the next group.
 *
 * - Each deployment counts its successes and failures in the current calendar minute.
 * - After a failure, the deployment cools down for 5 s (`DEFAULT_COOLDOWN_TIME_SECONDS`) when
 *   more than 50 % (`DEFAULT_FAILURE_THRESHOLD_PERCENT`) of its calls this minute failed and it
 *   had more than one call this minute; or at once for a status that is not retried (401, 404).
 *   A group with a single deployment cools only under heavy traffic (LiteLLM's
 *   `SINGLE_DEPLOYMENT_TRAFFIC_FAILURE_THRESHOLD`, 1000 calls in the minute).
 * - 400-class errors other than 401/404/408/429 neither count nor cool (they are the caller's).
 * - A retry picks again at random among the group's deployments that are not cooling, the one
 *   that just failed included, without waiting (LiteLLM retries at once while healthy
 *   deployments remain). With none left, the request falls back to the next group.
 *
 * Deliberately the same budget as the others: `numRetries` 1 inside the first group and at most
 * `attemptBudget` (3) calls per request, so that calls per request compare like for like.
 */
import type { ChatModel, ChatRequest } from '../../lambda/core/chat/chat-model.js';
import { ProviderError } from '../../lambda/core/failures/provider-error.js';
import type { Clock, Random, Sleep } from '../../lambda/core/time.js';

export interface CooldownRouterOptions {
  /** Model groups in fallback order, e.g. `[['officialA', 'officialB'], ['aggregator']]`. */
  groups: readonly (readonly string[])[];
  models: (key: string) => ChatModel | undefined;
  clock: Clock;
  sleep: Sleep;
  random: Random;
  /** Upper bound of one call, in ms. */
  timeoutMs: number;
  /** Calls per request at most. Default 3. */
  attemptBudget?: number;
  /** Retries inside a group before falling back. Default 1. */
  numRetries?: number;
  /** Cooldown in ms. Default 5000. */
  cooldownMs?: number;
  /** Failure share of the minute above which a deployment cools. Default 0.5. */
  failureThreshold?: number;
}

/** Calls of one deployment in one calendar minute. */
interface MinuteCounts {
  minute: number;
  ok: number;
  failed: number;
}

const SINGLE_DEPLOYMENT_TRAFFIC_FAILURE_THRESHOLD = 1000;
/** Reason for stopping an attempt's timer: a constant, since a fresh `DOMException` per call is costly. */
const ANSWERED = 'answered';
const CHAT: ChatRequest = { messages: [{ role: 'user', content: 'hi' }] };

/** Status LiteLLM's `_is_cooldown_required` looks at: 429, 401, 404, 408 and 5xx count; other 4xx do not. */
function countsForCooldown(error: ProviderError): boolean {
  const s = error.status;
  if (s === undefined) return error.failureClass !== 'cancelled';
  return s >= 500 || s === 429 || s === 401 || s === 404 || s === 408;
}

/** Routes one request; resolves whether it succeeded. */
export type CooldownRoute = () => Promise<boolean>;

export function createCooldownRouter(options: CooldownRouterOptions): CooldownRoute {
  const { clock, random } = options;
  const budget = options.attemptBudget ?? 3;
  const numRetries = options.numRetries ?? 1;
  const cooldownMs = options.cooldownMs ?? 5_000;
  const threshold = options.failureThreshold ?? 0.5;
  const counts = new Map<string, MinuteCounts>();
  const coolingUntil = new Map<string, number>();

  const thisMinute = (key: string): MinuteCounts => {
    const minute = Math.floor(clock.now() / 60_000);
    let c = counts.get(key);
    if (!c || c.minute !== minute) {
      c = { minute, ok: 0, failed: 0 };
      counts.set(key, c);
    }
    return c;
  };

  const afterFailure = (key: string, group: readonly string[], error: ProviderError) => {
    if (!countsForCooldown(error)) return;
    const c = thisMinute(key);
    c.failed++;
    const total = c.ok + c.failed;
    const notRetried = error.status === 401 || error.status === 404;
    const tooMany =
      total > 1 &&
      c.failed / total > threshold &&
      (group.length > 1 || total > SINGLE_DEPLOYMENT_TRAFFIC_FAILURE_THRESHOLD);
    if (notRetried || tooMany) coolingUntil.set(key, clock.now() + cooldownMs);
  };

  const call = async (model: ChatModel) => {
    const controller = new AbortController();
    const timer = new AbortController();
    options.sleep(options.timeoutMs, timer.signal).then(
      () => controller.abort(new DOMException('timed out', 'TimeoutError')),
      () => {},
    );
    try {
      await model.generate(CHAT, { signal: controller.signal, timeoutMs: options.timeoutMs });
    } finally {
      timer.abort(ANSWERED);
    }
  };

  return async () => {
    let calls = 0;
    for (const [index, group] of options.groups.entries()) {
      const last = index === options.groups.length - 1;
      for (let tries = 0; tries <= numRetries || last; tries++) {
        if (calls >= budget) return false;
        const healthy = group.filter((key) => (coolingUntil.get(key) ?? 0) <= clock.now());
        const key = healthy[Math.floor(random() * healthy.length)];
        const model = key === undefined ? undefined : options.models(key);
        if (key === undefined || !model) break;
        calls++;
        try {
          await call(model);
          thisMinute(key).ok++;
          return true;
        } catch (thrown) {
          const error =
            thrown instanceof ProviderError
              ? thrown
              : new ProviderError({
                  provider: key,
                  model: key,
                  failureClass: 'timeout',
                  message: 'timed out',
                });
          afterFailure(key, group, error);
        }
      }
    }
    return false;
  };
}
