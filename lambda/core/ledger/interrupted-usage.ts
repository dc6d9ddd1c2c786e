import type { Usage } from '../chat/chat-model.js';
import { estimateTokens } from '../chat/token-estimate.js';

/** What is known of a stream that ended without its upstream's usage report. */
export interface InterruptedStream {
  /** Prompt tokens the upstream reported before the stream broke (Anthropic's `message_start`), if it did. */
  reportedInputTokens?: number | undefined;
  /** The request's prompt tokens as estimated before the call (`estimatePromptTokens`). */
  promptEstimate: number;
  /** Characters of output the caller received from this attempt: text, tool-call names and arguments. */
  outputChars: number;
}

/**
 * The usage billed for a stream that broke after output (docs/concepts.md#usage-of-interrupted-streams):
 * the upstream read the whole prompt and wrote at least what the caller got, so neither side is
 * zero. Input: the tokens the upstream reported, else the estimate from the request. Output: the
 * characters the caller received at 4 characters a token (rounded up). Always an estimate on
 * the output side: the ledger line says so (`usageEstimated`).
 */
export function interruptedUsage(stream: InterruptedStream): Usage {
  return {
    inputTokens: stream.reportedInputTokens ?? stream.promptEstimate,
    outputTokens: estimateTokens(stream.outputChars),
  };
}
