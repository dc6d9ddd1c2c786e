/** The types of one committed stream written as server-sent events (`sse-stream.ts`). */
import type { ChatStreamEvent, Usage } from '../core/chat/chat-model.js';
import type { ProviderError } from '../core/failures/provider-error.js';
import type { CommittedStream } from '../core/router/route-chat.js';
import type { RouteSuccess } from '../core/router/route-types.js';
import type { ContinuedLabel } from '../core/router/stream-continuation.js';
import type { StreamSeam } from '../core/router/stream-seam.js';

export type StreamEvent = CommittedStream['first'];
/** What waiting for the upstream's next event gave. */
export type Step =
  | { kind: 'event'; event: StreamEvent }
  | { kind: 'done' }
  | { kind: 'error'; error: unknown };

/**
 * How one front door writes a committed stream as server-sent events (OpenAI chunks, Anthropic
 * message events). One instance per stream: a format may keep state between events.
 */
export interface StreamFormat {
  /** The text sent before the first event (e.g. OpenAI's role chunk); may be empty. */
  start(): string;
  /** One upstream event. */
  event(event: ChatStreamEvent): string;
  /** The clean end; `usage` is the finish event's. */
  end(usage: Usage | undefined): string;
  /** The explicit error event that ends a stream whose upstream failed after the commit. */
  error(message: string, failure: ProviderError): string;
  /**
   * The stream was continued after a break (docs/concepts.md#streams-cut-after-output): the
   * format puts `label` on its final chunk. Optional: a format without it shows no label.
   */
  continuedBy?(label: ContinuedLabel): void;
}

export interface SseOptions {
  format: StreamFormat;
  /** Aborts the upstream call: the caller went away. */
  abortCaller: () => void;
}

/** One stream's state: the route, what has been read so far, and whether it is over. */
export interface SseState {
  route: RouteSuccess<CommittedStream>;
  options: SseOptions;
  /** The current attempt's usage, from its finish event. */
  usage: Usage | undefined;
  finished: boolean;
  /** The wait for the next event, when one is under way (it may outlive one `pull`). */
  pending: Promise<Step> | undefined;
  /** Characters of output the current attempt sent the caller (an interrupted stream's usage). */
  outputChars: number;
  /** The answer's text the caller received, every attempt of it (kept when the stream may be continued). */
  text: string;
  /** True once a tool-call event went out: such a stream is never continued. */
  toolCall: boolean;
  /** While a continuation's first characters are checked for an overlap with `text`. */
  seam: StreamSeam | undefined;
  /** The usage of the attempts that broke before the current one (the caller's usage chunk adds it). */
  billed: Usage | undefined;
}
