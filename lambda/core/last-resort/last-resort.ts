import type { ChatRequest, ChatResult } from '../chat/chat-model.js';
import type { AnswerContext } from '../gateway/answer-flow.js';
import type { DegradedKind } from '../ledger/ledger-entry.js';
import { checkJsonAnswer, type JsonCheck } from '../output/json-answer.js';
import type { RouteFailure, RouteResult } from '../router/route-types.js';
import type { CachedAnswer } from './answer-cache.js';
import { answerKey } from './answer-key.js';

/**
 * What a failed request finally gets (docs/design.md#last-resort): only when every allowed route
 * has failed (the loop was exhausted or ran out of time; never after a stop or a cancellation, nor
 * when no route could carry the request),
 * the pipeline's template or its last good answer for the same request, labelled. An answer that
 * would not pass the request's format check is not used: the failure stands.
 */
export async function lastResortAnswer(
  ctx: AnswerContext,
  chat: ChatRequest,
  failure: RouteFailure,
  check: JsonCheck | undefined,
): Promise<RouteResult<ChatResult>> {
  const settings = ctx.policy.lastResort;
  // No route could carry the request (docs/concepts.md#capabilities): its 400 stands, it was never tried.
  const uncarried = failure.attempts.length === 0 && failure.unsupported !== undefined;
  const spent = (failure.reason === 'exhausted' && !uncarried) || failure.reason === 'deadline';
  const found = settings && spent ? await findAnswer(ctx, chat) : undefined;
  const usable = found && (!check || checkJsonAnswer(found.answer.content, check).ok);
  if (!found || !usable) {
    failure.conclude?.();
    return failure;
  }
  failure.conclude?.(found.kind);
  const { content, toolCalls, finishReason, model } = found.answer;
  return {
    ok: true,
    value: { content, toolCalls, finishReason },
    model,
    provider: 'switchyard',
    attempts: failure.attempts,
    route: failure.route,
    idleMs: 0,
    signal: new AbortController().signal,
    settle: async () => {},
    degraded: found.kind,
  };
}

async function findAnswer(
  ctx: AnswerContext,
  chat: ChatRequest,
): Promise<{ kind: DegradedKind; answer: CachedAnswer } | undefined> {
  const settings = ctx.policy.lastResort;
  if (settings?.type === 'template') {
    const answer = {
      content: settings.content,
      toolCalls: [],
      finishReason: 'stop' as const,
      model: ctx.request.pipeline,
    };
    return { kind: 'template', answer };
  }
  const key = answerKey(ctx.request.pipeline, chat, ctx.output.digest);
  try {
    const answer = await ctx.output.answers.get(key, ctx.router.clock.now());
    return answer && { kind: 'cache', answer };
  } catch {
    return undefined;
  }
}
