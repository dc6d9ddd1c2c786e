import { formatPath } from '../catalog/parse-config.js';
import type { ChatRequest, ChatResult, ResponseFormat } from '../chat/chat-model.js';
import { ProviderError } from '../failures/provider-error.js';
import type { AnswerCache } from '../last-resort/answer-cache.js';
import { answerKey, type Digest } from '../last-resort/answer-key.js';
import { lastResortAnswer } from '../last-resort/last-resort.js';
import { alignOutput } from '../output/align-output.js';
import { checkedGenerate, checkedStream } from '../output/checked-calls.js';
import type { JsonCheck } from '../output/json-answer.js';
import type { OutputPolicy } from '../output/output-policy.js';
import type { SchemaValidator } from '../output/schema-validator.js';
import { withSystemSuffix } from '../output/system-suffix.js';
import { type CommittedStream, routeGenerate, routeStream } from '../router/route-chat.js';
import type {
  AttemptCall,
  RouteFailure,
  RouteRequest,
  RouteResult,
  RouterDeps,
} from '../router/route-types.js';

/** The adapters behind structured output and the last resort. */
export interface OutputDeps {
  validator: SchemaValidator;
  answers: AnswerCache;
  digest: Digest;
}

/** One request on its way: what it routes over, and what its pipeline does with answers. */
export interface AnswerContext {
  request: RouteRequest;
  router: RouterDeps;
  policy: OutputPolicy;
  output: OutputDeps;
}

/** The check `response_format` asks for; `problem` when the caller's schema cannot be compiled. */
export async function formatCheck(
  format: ResponseFormat | undefined,
  validator: SchemaValidator,
): Promise<{ check?: JsonCheck | undefined } | { problem: string }> {
  if (format === undefined) return {};
  if (format.type === 'json_object') return { check: { type: 'json_object' } };
  const compiled = await validator.compile(format.schema);
  if (!compiled.ok) {
    const at = formatPath(['response_format', 'json_schema', 'schema', ...(compiled.at ?? [])]);
    return { problem: `${at}: ${compiled.problem}` };
  }
  return { check: { type: 'json_schema', check: compiled.check } };
}

/** A request refused before any attempt (an unusable schema): the caller gets a 400 naming it. */
function refused(message: string): RouteFailure {
  const error = new ProviderError({
    provider: 'switchyard',
    model: '',
    failureClass: 'invalid_request',
    message,
  });
  return { ok: false, reason: 'stopped', attempts: [], route: '', error };
}

/**
 * A plain answer (docs/design.md#structured-output, #output-alignment, #last-resort): the suffix
 * on every attempt, every answer checked when a format was asked, a substitute's answer aligned,
 * a good answer kept for the cache, and the last resort once every route has failed.
 */
export async function generateAnswer(
  ctx: AnswerContext,
  chat: ChatRequest,
): Promise<RouteResult<ChatResult>> {
  const { policy, output } = ctx;
  const format = await formatCheck(chat.responseFormat, output.validator);
  if ('problem' in format) return refused(format.problem);
  const sent = withSystemSuffix(chat, policy.systemPromptSuffix);
  const call: AttemptCall<ChatResult> = format.check
    ? checkedGenerate(sent, chat, format.check, policy.structured)
    : (model, options) => model.generate(sent, { ...options, callerInput: chat });
  const request = { ...ctx.request, deferFailureLine: policy.lastResort !== undefined };
  const result = await routeGenerate(request, ctx.router, sent, call);
  if (!result.ok) return lastResortAnswer(ctx, chat, result, format.check);
  const tier = result.attempts.at(-1)?.tier ?? 1;
  const { content } = result.value;
  if (tier > 1 && policy.substitutes && !format.check && content !== null) {
    result.value = { ...result.value, content: alignOutput(content, policy.substitutes) };
  }
  if (policy.lastResort?.type === 'cache')
    await keep(ctx, chat, result.value, result.model, policy.lastResort.ttlSeconds);
  return result;
}

/** Keeps a good answer for the cache; a store that fails costs the caller nothing. */
async function keep(
  ctx: AnswerContext,
  chat: ChatRequest,
  value: ChatResult,
  model: string,
  ttlSeconds: number,
) {
  const { answers, digest } = ctx.output;
  const key = answerKey(ctx.request.pipeline, chat, digest);
  const expiresAt = ctx.router.clock.now() + ttlSeconds * 1000;
  const { content, toolCalls, finishReason } = value;
  try {
    await answers.put(key, { content, toolCalls, finishReason, model }, expiresAt);
  } catch {
    // the answer is already the caller's; the next last resort may miss
  }
}

/**
 * A stream (docs/design.md#structured-output): the suffix on every attempt; with a format, the
 * committed stream is checked when it ends (and never continued after a break). Streams have no
 * post-processing and no last resort.
 */
export async function streamAnswer(
  ctx: AnswerContext,
  chat: ChatRequest,
): Promise<RouteResult<CommittedStream>> {
  const format = await formatCheck(chat.responseFormat, ctx.output.validator);
  if ('problem' in format) return refused(format.problem);
  const sent = withSystemSuffix(chat, ctx.policy.systemPromptSuffix);
  // A checked stream is judged whole at its end: it is never continued after a break.
  const request = format.check
    ? { ...ctx.request, policy: { ...ctx.request.policy, afterOutput: 'error' as const } }
    : ctx.request;
  const result = await routeStream(request, ctx.router, sent, chat);
  if (!result.ok || !format.check) return result;
  const { first, rest, promptTokens } = result.value;
  const who = { provider: result.provider, model: result.model };
  result.value = { first, rest: checkedStream(first, rest, format.check, who), promptTokens };
  return result;
}
