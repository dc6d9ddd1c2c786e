import type {
  CallOptions,
  ChatModel,
  ChatRequest,
  ChatResult,
  ChatStreamEvent,
} from '../../lambda/core/chat/chat-model.js';
import type { FailureClass } from '../../lambda/core/failures/failure-class.js';
import { ProviderError } from '../../lambda/core/failures/provider-error.js';
import type { FakeClock } from './fake-clock.js';

/** What one call of a scripted model does. */
export type Step =
  | { ok: true; tokens?: [number, number]; takesMs?: number }
  | { fail: FailureClass; status?: number; retryAfterMs?: number; takesMs?: number }
  /** Waits until the attempt's signal aborts. */
  | { hang: true }
  /**
   * Waits on the fake clock: the first byte `firstByteAtMs` after the call (a plain call reports
   * it through `onFirstByte`; a stream yields its first event then), the rest at `doneAtMs`.
   */
  | { paced: { firstByteAtMs: number; doneAtMs: number } }
  /** Decided by the fake clock's time at the call, e.g. an outage window: `(now) => step`. */
  | { byClock: (now: number) => Step };

export const OK: Step = { ok: true };
export const RATE_LIMITED: Step = { fail: 'rate_limited', status: 429 };
export const UNAVAILABLE: Step = { fail: 'unavailable', status: 503 };

export interface ScriptedModel extends ChatModel {
  calls: CallOptions[];
}

/**
 * A model that follows a script, one step per call (the last step repeats). Latency is simulated
 * by moving the fake clock, which also fires the attempt's own timeout.
 */
export function scriptedModel(
  key: string,
  clock: FakeClock,
  steps: Step[],
  provider = 'fake',
): ScriptedModel {
  const calls: CallOptions[] = [];
  const resolve = (step: Step): Step => ('byClock' in step ? resolve(step.byClock(clock.now())) : step);
  const next = (): Step => resolve(steps[Math.min(calls.length - 1, steps.length - 1)] ?? OK);
  const answer = (): ChatResult => ({
    content: `answer from ${key}`,
    toolCalls: [],
    finishReason: 'stop',
    usage: { inputTokens: 10, outputTokens: 5 },
  });
  const run = async (options: CallOptions): Promise<ChatResult> => {
    calls.push(options);
    const step = next();
    if ('paced' in step) {
      await clock.sleep(step.paced.firstByteAtMs, options.signal);
      options.onFirstByte?.();
      await clock.sleep(step.paced.doneAtMs - step.paced.firstByteAtMs, options.signal);
      return answer();
    }
    if ('hang' in step) {
      await new Promise<never>((_, reject) =>
        options.signal.addEventListener(
          'abort',
          () =>
            reject(
              new ProviderError({ provider, model: key, failureClass: 'cancelled', message: 'aborted' }),
            ),
          { once: true },
        ),
      );
    }
    if ('takesMs' in step && step.takesMs) clock.advance(step.takesMs);
    if ('fail' in step) {
      throw new ProviderError({
        provider,
        model: key,
        failureClass: step.fail,
        status: step.status,
        retryAfterMs: step.retryAfterMs,
        message: `scripted ${step.fail}`,
      });
    }
    const [inputTokens, outputTokens] = 'tokens' in step && step.tokens ? step.tokens : [10, 5];
    return {
      content: `answer from ${key}`,
      toolCalls: [],
      finishReason: 'stop',
      usage: { inputTokens, outputTokens },
    };
  };
  return {
    key,
    provider,
    calls,
    generate: (_request: ChatRequest, options: CallOptions) => run(options),
    async *stream(_request: ChatRequest, options: CallOptions): AsyncIterable<ChatStreamEvent> {
      const step = resolve(steps[Math.min(calls.length, steps.length - 1)] ?? OK);
      if ('paced' in step) {
        calls.push(options);
        await clock.sleep(step.paced.firstByteAtMs, options.signal);
        yield { type: 'text', text: 'first' };
        await clock.sleep(step.paced.doneAtMs - step.paced.firstByteAtMs, options.signal);
        yield { type: 'finish', finishReason: 'stop', usage: { inputTokens: 10, outputTokens: 5 } };
        return;
      }
      const result = await run(options);
      yield { type: 'text', text: result.content ?? '' };
      yield { type: 'finish', finishReason: result.finishReason, usage: result.usage };
    },
  };
}
