/**
 * Body builders of the OpenAI fake, in the exact shapes of the Chat Completions API: the JSON
 * completion, the SSE chunk stream, and the error envelope.
 */
import type { AnswerPlan, FakeFinish } from './fake-answer.js';
import type { Fault } from './fault.js';

/** OpenAI's error envelope. */
export interface OpenAIErrorBody {
  error: { message: string; type: string; code: string | null; param: string | null };
}

/** Identity of one answer, shared by every chunk of a stream. */
export interface OpenAIAnswerMeta {
  id: string;
  /** Unix seconds. */
  created: number;
  model: string;
}

const FINISH: Record<FakeFinish, string> = {
  stop: 'stop',
  length: 'length',
  tool_calls: 'tool_calls',
  content_filter: 'content_filter',
  guardrail: 'content_filter',
  stop_sequence: 'stop',
};

/** OpenAI `finish_reason` for a neutral finish. */
export function openaiFinishReason(finish: FakeFinish): string {
  return FINISH[finish];
}

/** Usage with the details a fault scripts: cached and cache-write prompt tokens, reasoning tokens. */
function usageOf(plan: AnswerPlan, fault: Fault) {
  const promptDetails = {
    ...(fault.cacheReadTokens === undefined ? {} : { cached_tokens: fault.cacheReadTokens }),
    ...(fault.cacheWriteTokens === undefined ? {} : { cache_write_tokens: fault.cacheWriteTokens }),
  };
  return {
    prompt_tokens: plan.promptTokens,
    completion_tokens: plan.completionTokens,
    total_tokens: plan.promptTokens + plan.completionTokens,
    ...(Object.keys(promptDetails).length === 0 ? {} : { prompt_tokens_details: promptDetails }),
    ...(fault.reasoningTokens === undefined
      ? {}
      : { completion_tokens_details: { reasoning_tokens: fault.reasoningTokens } }),
  };
}

/** `reasoning_content` of a scripted reasoning, as DeepSeek-style servers write it. */
const reasoningOf = (fault: Fault) =>
  fault.reasoning === undefined ? {} : { reasoning_content: fault.reasoning };

/** `logprobs: true` (and `top_logprobs`) of a request: how many alternatives per token; undefined when not asked. */
export type LogprobsAsk = { top: number } | undefined;

/**
 * Made-up log probabilities, one entry per answer piece, in OpenAI's `choice.logprobs` shape: the
 * piece at -0.25 × (its position + 1), then `top` alternatives (the piece itself first, then
 * `alt<n>` tokens), so a test can tell them apart. Null when not asked, as OpenAI sends it.
 */
export function fakeLogprobs(pieces: readonly string[], ask: LogprobsAsk, from = 0) {
  if (!ask) return null;
  const entry = (token: string, logprob: number) => ({
    token,
    logprob,
    bytes: [...Buffer.from(token, 'utf8')],
  });
  const content = pieces.map((piece, i) => {
    const logprob = -0.25 * (from + i + 1);
    const top = Array.from({ length: ask.top }, (_, n) =>
      n === 0 ? entry(piece, logprob) : entry(`alt${n}`, logprob - n),
    );
    return { ...entry(piece, logprob), top_logprobs: top };
  });
  return { content, refusal: null };
}

/** A non-streaming `chat.completion`; `logprobs` when the request asked for them. */
export function completionBody(
  meta: OpenAIAnswerMeta,
  plan: AnswerPlan,
  fault: Fault = {},
  logprobs?: LogprobsAsk,
): object {
  const { toolCall } = plan;
  const message = toolCall
    ? {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: toolCall.id,
            type: 'function',
            function: { name: toolCall.name, arguments: toolCall.arguments },
          },
        ],
        refusal: null,
        annotations: [],
        ...reasoningOf(fault),
      }
    : { role: 'assistant', content: plan.text, refusal: null, annotations: [], ...reasoningOf(fault) };
  return {
    id: meta.id,
    object: 'chat.completion',
    created: meta.created,
    model: meta.model,
    choices: [
      {
        index: 0,
        message,
        logprobs: toolCall ? null : fakeLogprobs(plan.chunks, logprobs),
        finish_reason: FINISH[plan.finish],
      },
    ],
    usage: usageOf(plan, fault),
    system_fingerprint: 'fp_fake',
  };
}

/** How a stream ends: normally, cut after N content chunks, or with an in-stream error. */
export interface StreamEnding {
  includeUsage: boolean;
  /** Log probabilities on each content chunk, when the request asked for them. */
  logprobs?: LogprobsAsk;
  cutAfterChunks?: number | undefined;
  error?: OpenAIErrorBody | undefined;
}

/**
 * The SSE frames of a streamed answer: a role chunk (not a content chunk, as OpenAI sends it),
 * content chunks, the finish chunk, the usage chunk (`include_usage`), `[DONE]`. With
 * `cutAfterChunks` only the role chunk and N content chunks (then the error frame, if any).
 */
export function streamFrames(
  meta: OpenAIAnswerMeta,
  plan: AnswerPlan,
  ending: StreamEnding,
  fault: Fault = {},
): string[] {
  const base = `{"id":${JSON.stringify(meta.id)},"object":"chat.completion.chunk","created":${meta.created},"model":${JSON.stringify(meta.model)},"system_fingerprint":"fp_fake",`;
  const usageNull = ending.includeUsage ? ',"usage":null' : '';
  const frame = (delta: object, finish: string | null, logprobs: object | null = null): string =>
    `data: ${base}"choices":[{"index":0,"delta":${JSON.stringify(delta)},"logprobs":${JSON.stringify(logprobs)},"finish_reason":${JSON.stringify(finish)}}]${usageNull}}\n\n`;

  const { toolCall } = plan;
  const frames = [
    toolCall
      ? frame(
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              {
                index: 0,
                id: toolCall.id,
                type: 'function',
                function: { name: toolCall.name, arguments: '' },
              },
            ],
          },
          null,
        )
      : frame({ role: 'assistant', content: '', refusal: null }, null),
  ];
  if (fault.reasoning !== undefined) frames.push(frame({ reasoning_content: fault.reasoning }, null));
  const count =
    ending.cutAfterChunks === undefined
      ? plan.chunks.length
      : Math.min(ending.cutAfterChunks, plan.chunks.length);
  for (let i = 0; i < count; i++) {
    const piece = plan.chunks[i] as string;
    frames.push(
      frame(
        toolCall ? { tool_calls: [{ index: 0, function: { arguments: piece } }] } : { content: piece },
        null,
        toolCall ? null : fakeLogprobs([piece], ending.logprobs, i),
      ),
    );
  }
  if (ending.cutAfterChunks !== undefined) {
    if (ending.error) frames.push(`data: ${JSON.stringify(ending.error)}\n\n`);
    return frames;
  }
  frames.push(frame({}, FINISH[plan.finish]));
  if (ending.includeUsage)
    frames.push(`data: ${base}"choices":[],"usage":${JSON.stringify(usageOf(plan, fault))}}\n\n`);
  frames.push('data: [DONE]\n\n');
  return frames;
}

const ERROR_KIND: Record<number, { type: string; code: string | null }> = {
  400: { type: 'invalid_request_error', code: null },
  401: { type: 'invalid_request_error', code: 'invalid_api_key' },
  403: { type: 'invalid_request_error', code: 'unsupported_country_region_territory' },
  404: { type: 'invalid_request_error', code: 'model_not_found' },
  408: { type: 'timeout_error', code: null },
  409: { type: 'invalid_request_error', code: null },
  422: { type: 'invalid_request_error', code: null },
  429: { type: 'requests', code: 'rate_limit_exceeded' },
};

function defaultMessage(status: number, code: string | null, model: string, fault: Fault): string {
  if (code === 'context_length_exceeded') {
    return "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens. Please reduce the length of the messages.";
  }
  switch (status) {
    case 400:
      return 'Invalid request.';
    case 401:
      return 'Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.';
    case 403:
      return 'Country, region, or territory not supported.';
    case 404:
      return `The model \`${model}\` does not exist or you do not have access to it.`;
    case 429:
      return `Rate limit reached for ${model} (fake). Please try again in ${fault.retryAfter ?? 1}s.`;
    case 503:
      return 'The engine is currently overloaded, please try again later.';
    default:
      return status >= 500
        ? 'The server had an error while processing your request. Sorry about that!'
        : `Request failed with status ${status}.`;
  }
}

/** The error envelope for a scripted `status` ≥ 400 (or an in-stream error). */
export function openaiErrorBody(status: number, model: string, fault: Fault): OpenAIErrorBody {
  const kind = ERROR_KIND[status] ?? {
    type: status >= 500 ? 'server_error' : 'invalid_request_error',
    code: null,
  };
  const code = fault.errorCode ?? kind.code;
  return {
    error: {
      message: fault.errorMessage ?? defaultMessage(status, code, model, fault),
      type: kind.type,
      code,
      param: code === 'context_length_exceeded' ? 'messages' : null,
    },
  };
}

/** An error envelope for a bad request body (the fake's own validation). */
export function invalidRequestBody(message: string, param: string | null): OpenAIErrorBody {
  return { error: { message, type: 'invalid_request_error', code: null, param } };
}

/** A 200 body that is not valid JSON, or valid JSON of the wrong shape. */
export function malformedCompletion(kind: 'unparseable' | 'schema', meta: OpenAIAnswerMeta): string {
  return kind === 'schema'
    ? JSON.stringify({
        id: meta.id,
        object: 'chat.completion',
        created: meta.created,
        model: meta.model,
        choices: null,
      })
    : `{"id":${JSON.stringify(meta.id)},"object":"chat.completion","choices":[{"index":0,"message":`;
}

/** SSE frames whose data is not JSON, or JSON of the wrong shape; then `[DONE]`. */
export function malformedStream(kind: 'unparseable' | 'schema', meta: OpenAIAnswerMeta): string[] {
  const data =
    kind === 'schema'
      ? JSON.stringify({
          id: meta.id,
          object: 'chat.completion.chunk',
          created: meta.created,
          choices: 'oops',
        })
      : '{"id":"broken","choices":[{"delta":';
  return [`data: ${data}\n\n`, 'data: [DONE]\n\n'];
}
