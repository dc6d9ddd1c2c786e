/**
 * The one contract every provider adapter implements (in the spirit of the Vercel AI SDK's
 * `LanguageModel`). Requests and results are normalised, so the router and the HTTP layer never
 * see a provider's own shapes.
 */
import type { EmbeddingRequest, EmbeddingResult } from '../embeddings/embedding-model.js';

/** A tool the model may call; `parameters` is a JSON Schema object. */
export interface ToolDefinition {
  name: string;
  description?: string | undefined;
  parameters?: Record<string, unknown> | undefined;
  /** A prompt-cache breakpoint right after this tool (docs/http-api.md#reasoning-and-prompt-caching). */
  cache?: CacheBreakpoint | undefined;
}

/**
 * A prompt-cache breakpoint: the provider may cache the prompt up to and including the thing it
 * is set on (Anthropic `cache_control`, Bedrock `cachePoint`). `ttl` is the cache's lifetime as
 * Anthropic names it; absent, the provider's default (5 minutes).
 */
export interface CacheBreakpoint {
  ttl?: '5m' | '1h' | undefined;
}

/**
 * One block of the model's reasoning, kept whole so that it can be sent back unchanged on the
 * next turn. `thinking`: reasoning text, with the provider's `signature` when it signed it (only
 * signed blocks can be sent back); `redacted`: reasoning the provider encrypted, as its opaque
 * `data` (Anthropic's string; Bedrock's bytes in base64).
 */
export type ReasoningBlock =
  | { type: 'thinking'; text: string; signature?: string | undefined }
  | { type: 'redacted'; data: string };

/** A tool call made by the model; `arguments` is the JSON text the model produced. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * Where the bytes of an image or document are: a URL the provider fetches itself (the gateway
 * never fetches one), or the bytes inline as base64 with their media type (e.g. `image/png`).
 */
export type MediaSource = { kind: 'url'; url: string } | { kind: 'data'; mediaType: string; data: string };

/** One part of a user message or tool result (docs/http-api.md#content-parts). */
export type ContentPart =
  | { type: 'text'; text: string }
  | { type: 'image'; source: MediaSource }
  /** A document (PDF); `name` is the caller's file name, when it gave one. */
  | { type: 'document'; source: MediaSource; name?: string | undefined };

/** Plain text, or parts (text, images, documents) in the order the caller gave them. */
export type MessageContent = string | ContentPart[];

/** One message of one role, with what that role carries. */
type RoleMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: MessageContent }
  | {
      role: 'assistant';
      content: string | null;
      toolCalls?: ToolCall[] | undefined;
      /**
       * What the model reasoned before this answer: sent back unchanged to a family that takes
       * it (Anthropic, Bedrock), left out elsewhere.
       */
      reasoning?: ReasoningBlock[] | undefined;
    }
  | {
      role: 'tool';
      content: MessageContent;
      toolCallId: string;
      /** The tool failed and `content` says how (Anthropic's `is_error`). Absent: it succeeded. */
      isError?: boolean | undefined;
    };

/** One message; `cache` marks a prompt-cache breakpoint at the end of its content. */
export type ChatMessage = RoleMessage & { cache?: CacheBreakpoint | undefined };

export type ToolChoice = 'auto' | 'none' | 'required' | { name: string };

/**
 * The structured output the caller asked for (`response_format`): any JSON object, or JSON that
 * matches `schema`. The gateway checks every answer against it (docs/design.md#structured-output).
 */
export type ResponseFormat =
  | { type: 'json_object' }
  | { type: 'json_schema'; name: string; schema: Record<string, unknown>; strict?: boolean | undefined };

/** A provider-neutral chat request. System messages stay in `messages`; adapters place them. */
export interface ChatRequest {
  messages: ChatMessage[];
  /** Upper bound on output tokens (the door's output-bound field). */
  maxTokens?: number | undefined;
  temperature?: number | undefined;
  topP?: number | undefined;
  stop?: string[] | undefined;
  tools?: ToolDefinition[] | undefined;
  toolChoice?: ToolChoice | undefined;
  /** Structured output; absent for plain text (`response_format` absent or `{type: "text"}`). */
  responseFormat?: ResponseFormat | undefined;
  /**
   * Reasoning asked for: an `effort`, a token budget (`budgetTokens`, part of the output tokens),
   * or both; each family takes the one it speaks and derives it from the other
   * (`reasoning-budget.ts`). Absent: each model's default.
   */
  reasoning?: { effort?: 'minimal' | 'low' | 'medium' | 'high'; budgetTokens?: number } | undefined;
  /**
   * Token log probabilities asked for (`logprobs: true`): `top` alternatives per token, 0–20
   * (default 0). Absent: none asked for. Only routes with the `logprobs` capability are tried.
   */
  logprobs?: { top: number } | undefined;
}

/** The reasoning a request asks for (`ChatRequest.reasoning`). */
export type ReasoningRequest = NonNullable<ChatRequest['reasoning']>;

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'error' | 'other';

/** Token usage of one upstream call. */
export interface Usage {
  /** Every input token, cached ones included (priced at the input rate). */
  inputTokens: number;
  outputTokens: number;
  /** Of `inputTokens`, those read from the provider's prompt cache; absent when it reported none. */
  cacheReadTokens?: number | undefined;
  /** Of `inputTokens`, those written to the provider's prompt cache; absent when it reported none. */
  cacheWriteTokens?: number | undefined;
  /** Of `outputTokens`, those spent reasoning; absent when the provider did not say. */
  reasoningTokens?: number | undefined;
}

/** One alternative token and its log probability (natural log). */
export interface TokenAlternative {
  token: string;
  logprob: number;
  /** The token's UTF-8 bytes, when the upstream gave them. */
  bytes?: number[] | null | undefined;
}

/** One output token's log probability, with the top alternatives the request asked for. */
export interface TokenLogprob extends TokenAlternative {
  top: TokenAlternative[];
}

export interface ChatResult {
  content: string | null;
  toolCalls: ToolCall[];
  finishReason: FinishReason;
  usage?: Usage | undefined;
  /** The model's reasoning before its answer, in order; absent when it showed none. */
  reasoning?: ReasoningBlock[] | undefined;
  /** Per output token of `content`, when the request asked for them and the route returned them. */
  logprobs?: TokenLogprob[] | undefined;
}

/** One piece of a streamed answer, in the order the provider produced it. */
export type ChatStreamEvent =
  | {
      type: 'text';
      text: string;
      /** The log probabilities of this delta's tokens, when asked for and returned. */
      logprobs?: TokenLogprob[] | undefined;
    }
  | {
      type: 'tool_call';
      /** Position of the call in the answer; deltas with the same index belong together. */
      index: number;
      id?: string | undefined;
      name?: string | undefined;
      argumentsDelta?: string | undefined;
    }
  | {
      /**
       * Reasoning, before the answer: `text` adds to the open reasoning block, `signature` signs
       * and closes it, `redacted` is a whole encrypted block of its own.
       */
      type: 'reasoning';
      text?: string | undefined;
      signature?: string | undefined;
      redacted?: string | undefined;
    }
  | { type: 'finish'; finishReason: FinishReason; usage?: Usage | undefined };

/**
 * Per-attempt options. The attempt loop owns the attempt's time: its one timer aborts `signal`
 * when `timeoutMs` has passed. A model honours the signal and starts no timer of its own.
 */
export interface CallOptions {
  /**
   * Aborts when the attempt's time is up (reason: an `AttemptTimeout`) or the caller goes away
   * (the caller's reason); `toProviderError` reads the reason to tell `timeout` from `cancelled`.
   */
  signal: AbortSignal;
  /**
   * Time this attempt may take, in ms: its total limit (`timeouts.totalMs`, grown to fit the
   * caller's `max_tokens` on a plain answer) capped by the time left before the deadline;
   * informative, `signal` enforces it.
   */
  timeoutMs: number;
  /**
   * `generate` only: call when the upstream's response headers arrive (the first byte), so the
   * router's timer moves from the first-byte limit to the total one. A stream never calls it: its
   * first byte is its first content event, which the router sees itself (the commit). Optional;
   * a model that never calls it has its whole answer bounded by the first-byte limit.
   */
  onFirstByte?: (() => void) | undefined;
  /**
   * The request as the caller wrote it, so error classification can tell an upstream's own words
   * from an echo of the caller's (docs/security.md). Optional; absent, message text never
   * quarantines a route.
   */
  callerInput?: unknown;
}

/**
 * A model the router can call. Implementations throw only `ProviderError` (before or during a
 * stream), never a raw SDK error.
 */
export interface ChatModel {
  /** Model key from the catalog (a key of `models`). */
  readonly key: string;
  /** Provider name from the config (a key of `providers`). */
  readonly provider: string;
  generate(request: ChatRequest, options: CallOptions): Promise<ChatResult>;
  stream(request: ChatRequest, options: CallOptions): AsyncIterable<ChatStreamEvent>;
  /**
   * Embeddings (the embeddings door), on the provider families that serve them. Absent
   * elsewhere; the catalog refuses `dimensions` on a model without it.
   */
  embed?(request: EmbeddingRequest, options: CallOptions): Promise<EmbeddingResult>;
  /**
   * The input tokens `request` would cost on this route, from the provider's own count endpoint
   * (Anthropic's `/v1/messages/count_tokens`), on the families that have one. Absent elsewhere:
   * the gateway estimates (docs/http-api.md#count-tokens).
   */
  countTokens?(request: ChatRequest, options: CallOptions): Promise<number>;
}
