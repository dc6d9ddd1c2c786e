/**
 * What a fake upstream does with ONE request. The same shape drives the OpenAI-compatible, the
 * Bedrock Converse and the Anthropic Messages fakes, so a drill reads the same whichever provider
 * it targets.
 */
import * as z from 'zod';
import { SwitchyardError } from '../../core/errors.js';

/** A tool call the fake answers with, when the request offered tools. */
export const toolCallFaultSchema = z.strictObject({
  /** Name of the tool to call. */
  name: z.string().min(1),
  /** Arguments as a JSON object (OpenAI: serialised into `arguments`; Bedrock: `toolUse.input`). Default `{}`. */
  arguments: z.record(z.string(), z.unknown()).optional(),
});

/**
 * Validation schema of a {@link Fault}. Unknown keys are rejected so that a typo in a curl
 * command (`retry_after`) fails loudly instead of silently answering 200.
 */
export const faultSchema = z
  .strictObject({
    /**
     * HTTP status to answer. ≥ 400 answers with an error body in the provider's format. Combined
     * with `cutAfterChunks` on a streaming request, the status is sent as an in-stream error event
     * after N chunks instead (headers stay 200, like a provider failing mid-stream).
     */
    status: z.int().min(200).max(599).optional(),
    /** Seconds; sets the `Retry-After` header on the answer. */
    retryAfter: z.int().nonnegative().optional(),
    /** Delay before the headers, in ms. Default 0. */
    latencyMs: z.int().nonnegative().optional(),
    /**
     * Delay between the headers and the body, in ms: a plain answer's body, a stream's first
     * frame (a slow first token after quick headers). Default 0.
     */
    bodyDelayMs: z.int().nonnegative().optional(),
    /** Never answer; the request ends only when the client goes away or the fake closes. */
    hang: z.boolean().optional(),
    /** Destroy the socket before any header (a connection reset). */
    reset: z.boolean().optional(),
    /**
     * Streaming: send N content chunks, then destroy the socket (or send the error event, see
     * `status`). Non-streaming: send the first half of the body, then destroy the socket.
     */
    cutAfterChunks: z.int().nonnegative().optional(),
    /** Streaming: send N content chunks, then go silent with the connection open (a stalled upstream). */
    stallAfterChunks: z.int().nonnegative().optional(),
    /**
     * Streaming (OpenAI and Anthropic fakes): send N content chunks, then one event whose payload
     * is not JSON, then end the stream (a corrupt event mid-answer).
     */
    malformedAfterChunks: z.int().nonnegative().optional(),
    /**
     * Prefill (Anthropic and Bedrock fakes: a request whose last message is the assistant's):
     * the continuation starts this many words before the end of the prefill, writing them again
     * (a model that repeats itself at the seam). Default 0: exactly what follows the prefill.
     */
    prefillEchoWords: z.int().nonnegative().optional(),
    /**
     * Answer 200 with a bad body. `true` or `'unparseable'`: not valid JSON (streaming: an event
     * whose payload is not JSON). `'schema'`: valid JSON of the wrong shape.
     */
    malformed: z.union([z.boolean(), z.enum(['unparseable', 'schema'])]).optional(),
    /** Error message override for `status` ≥ 400. */
    errorMessage: z.string().optional(),
    /**
     * For `status` ≥ 400: the error message is the text of the request's last user message, as
     * providers that quote the offending input do (the echo a caller can abuse). Wins over
     * `errorMessage`.
     */
    echoPrompt: z.boolean().optional(),
    /**
     * Error code override for `status` ≥ 400. OpenAI: `error.code` (e.g. `context_length_exceeded`).
     * Bedrock: the exception name in `x-amzn-errortype` (e.g. `ModelNotReadyException`).
     * Anthropic: `error.type` (e.g. `overloaded_error`).
     */
    errorCode: z.string().optional(),
    /** Answer text. Default `Hello from <model>.` */
    text: z.string().optional(),
    /** Answer with this tool call when the request offered tools; ignored otherwise. */
    toolCall: toolCallFaultSchema.optional(),
    /**
     * Forces the finish reason. OpenAI / Bedrock: `stop` → stop / end_turn, `length` → length /
     * max_tokens, `content_filter` → content_filter / content_filtered, `guardrail` →
     * content_filter / guardrail_intervened.
     */
    finishReason: z.enum(['stop', 'length', 'content_filter', 'guardrail']).optional(),
    /** Streaming: delay between chunks, in ms. Default 0 (the whole stream in one write). */
    chunkDelayMs: z.int().nonnegative().optional(),
    /**
     * OpenAI fake: the model writes its answer at this many tokens per second (other fakes ignore
     * it). A plain answer's headers go at once and its body when every completion token is
     * written (`bodyDelayMs` adds to that); a stream's chunks are spaced to the same rate
     * (unless `chunkDelayMs` says). The answer is `text` cut at the request's `max_tokens`.
     */
    tokensPerSec: z.number().positive().optional(),
    /** Embeddings: answer vectors of this length. Default: the request's `dimensions`, else 1536. */
    dimensions: z.int().positive().max(65_536).optional(),
    /**
     * Prompt tokens reported as read from the prompt cache: Anthropic `cache_read_input_tokens`
     * and Bedrock `cacheReadInputTokens` (the input count is what remains of the prompt), OpenAI
     * `prompt_tokens_details.cached_tokens` (part of `prompt_tokens`). Default: none reported
     * (Anthropic: 0).
     */
    cacheReadTokens: z.int().nonnegative().optional(),
    /**
     * Prompt tokens reported as written to the prompt cache: Anthropic
     * `cache_creation_input_tokens`, Bedrock `cacheWriteInputTokens`, OpenAI (OpenRouter style)
     * `prompt_tokens_details.cache_write_tokens`. Default: none reported (Anthropic: 0).
     */
    cacheWriteTokens: z.int().nonnegative().optional(),
    /**
     * The model reasons this text before answering: Anthropic a signed `thinking` block (streamed
     * as `thinking_delta`s and a `signature_delta`), Bedrock a `reasoningContent` block with
     * `reasoningText` and a signature, OpenAI `reasoning_content` on the message and the deltas.
     * The signature is `sig_fake_<seq>`. Default: no reasoning.
     */
    reasoning: z.string().min(1).optional(),
    /**
     * The model's reasoning is encrypted, after `reasoning` if both are set: Anthropic a
     * `redacted_thinking` block whose `data` is this text, Bedrock a `reasoningContent` block whose
     * `redactedContent` is this text's bytes. The OpenAI fake ignores it. Default: none.
     */
    redactedReasoning: z.string().min(1).optional(),
    /**
     * OpenAI: of the completion tokens, this many are reported as reasoning
     * (`completion_tokens_details.reasoning_tokens`). Other fakes ignore it. Default: none reported.
     */
    reasoningTokens: z.int().nonnegative().optional(),
  })
  .refine(
    (f) =>
      (f.errorMessage === undefined && f.errorCode === undefined && f.echoPrompt === undefined) ||
      (f.status ?? 200) >= 400,
    {
      message: 'errorMessage, errorCode and echoPrompt need a status >= 400',
      path: ['status'],
    },
  );

/** What to do with one request. `{}` is a normal successful answer. */
export type Fault = z.infer<typeof faultSchema>;

/**
 * Custom behaviour consulted when a model's scripted queue is empty (e.g. quota-based 429s in the
 * demo). `requestIndex` is the 0-based index of this request among the requests for `model`
 * since the last reset (scripted requests count too). Returning `undefined` falls through to the
 * defaults. Returned faults are not validated: the hook runs on every request and must stay cheap.
 */
export type FaultHook = (model: string, requestIndex: number) => Fault | undefined;

/** Formats zod issues as `path: message; ...` for 400 answers and thrown errors. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(body)'}: ${issue.message}`)
    .join('; ');
}

/** A fault given to `script()` / `setDefault()` does not match {@link faultSchema}. */
export class InvalidFaultError extends SwitchyardError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'InvalidFaultError';
  }
}

/** Validates a fault once, when it is scripted, so the request path never has to. */
export function parseFault(fault: unknown): Fault {
  const result = faultSchema.safeParse(fault);
  if (!result.success) {
    throw new InvalidFaultError(`Invalid fault: ${describeIssues(result.error)}`, { cause: result.error });
  }
  return result.data;
}

/** How a scripted stream ends: cleanly, with a cut socket, or silent with the connection open. */
export type StreamEnding = 'end' | 'destroy' | 'stall';

/**
 * The chunk count after which a streamed answer stops (`cutAfterChunks`, else `stallAfterChunks`,
 * else `malformedAfterChunks`), and how it stops. An in-stream error event, and a corrupt event
 * (`malformed`: the fake appends its own), end the stream cleanly after their chunks.
 */
export function streamCut(
  fault: Fault,
  midStreamError: boolean,
): { afterChunks: number | undefined; ending: StreamEnding; malformed: boolean } {
  const ending: StreamEnding =
    fault.cutAfterChunks !== undefined && !midStreamError
      ? 'destroy'
      : fault.stallAfterChunks !== undefined
        ? 'stall'
        : 'end';
  const afterChunks = fault.cutAfterChunks ?? fault.stallAfterChunks ?? fault.malformedAfterChunks;
  const malformed =
    fault.cutAfterChunks === undefined &&
    fault.stallAfterChunks === undefined &&
    fault.malformedAfterChunks !== undefined;
  return { afterChunks, ending, malformed };
}
