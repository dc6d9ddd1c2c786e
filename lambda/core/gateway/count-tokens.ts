/**
 * Counting a request's input tokens for a chain (`POST /v1/messages/count_tokens`): the route that
 * would be tried first counts them with its provider's own endpoint when its family has one;
 * otherwise, or when that count fails, they are estimated at `charsPerToken` characters a token,
 * the estimate admission reserves with (docs/http-api.md#count-tokens). A count is not an attempt:
 * it records nothing in the breakers or the ledger.
 */
import type { ChatRequest } from '../chat/chat-model.js';
import { abortable, startAttemptDeadline } from '../router/attempt-control.js';
import type { RouteModel } from '../router/route-types.js';
import { type Clock, type SetTimer, type Sleep, timerOfSleep } from '../time.js';
import type { Target } from './target.js';

/** A count, and where it came from. */
export interface TokenCount {
  inputTokens: number;
  /** `upstream`: the route's own count endpoint; `estimate`: characters divided by `charsPerToken`. */
  source: 'upstream' | 'estimate';
  /** The model key whose route counted (an upstream count only). */
  model?: string | undefined;
}

/** What a count needs besides the request: the routes, time, and the estimate's inputs. */
export interface CountDeps {
  /** The route models of a model key, in order (a single-route model: one). */
  routesOf(modelKey: string): RouteModel[];
  clock: Clock;
  sleep: Sleep;
  /** The count's timer. Default: made of `sleep`. */
  timer?: SetTimer | undefined;
}

/** The request's size for the estimate: characters of its input (as the door measured them) and the rate. */
export interface CountInput {
  inputChars: number;
  /** Characters counted as one token (config `admission.charsPerToken`, default 4). */
  charsPerToken: number;
  signal?: AbortSignal | undefined;
}

/** `ceil(inputChars / charsPerToken)`. */
export function estimateInputTokens(inputChars: number, charsPerToken: number): number {
  return Math.ceil(inputChars / charsPerToken);
}

/**
 * Counts with the first route of the chain's first member (the route a fresh request tries first,
 * when its tier has one member), within that route's total time limit.
 */
export async function countTokens(
  deps: CountDeps,
  target: Target,
  chat: ChatRequest,
  input: CountInput,
): Promise<TokenCount> {
  const estimate: TokenCount = {
    inputTokens: estimateInputTokens(input.inputChars, input.charsPerToken),
    source: 'estimate',
  };
  const first = target.tiers[0]?.members[0]?.key;
  const route = first === undefined ? undefined : deps.routesOf(first)[0];
  if (!route?.model.countTokens) return estimate;
  const { totalMs, firstByteMs } = route.timeouts;
  const deadline = startAttemptDeadline(
    deps.timer ?? timerOfSleep(deps.sleep),
    deps.clock.now,
    { firstByteMs, totalMs, allowanceMs: 0 },
    input.signal,
  );
  try {
    const counted = await abortable(
      route.model.countTokens(chat, {
        signal: deadline.signal,
        timeoutMs: totalMs,
        onFirstByte: deadline.firstByte,
      }),
      deadline.signal,
    );
    return { inputTokens: counted, source: 'upstream', model: first };
  } catch {
    // Advisory: a count that failed is estimated rather than failing the caller.
    return estimate;
  } finally {
    deadline.stopTimer();
  }
}
