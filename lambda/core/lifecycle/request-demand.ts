/**
 * What one request asks of the gateway, measured by the front door that read it: the door knows
 * its own fields (how its caller counts messages, which field named the output bound), the rest of
 * the request lifecycle only reads these numbers.
 */
import type { AskedChat } from '../admission/chain-reservation.js';

/** The output bound the caller set, and the body field it set it in (named by a refusal). */
export interface AskedOutput {
  tokens: number;
  /** The caller's own field, e.g. `max_tokens`. */
  param: string;
}

/** A request's size, in the numbers the bounds and the admission reservation read. */
export interface RequestDemand extends AskedChat {
  /**
   * Messages as the caller sent them (bounded by `limits.maxMessages`). Absent for a request
   * without messages (embeddings): no message bound applies.
   */
  messages?: number | undefined;
  /**
   * The output bound the caller asked for, checked against the chain's models once the target is
   * known. Absent: the caller set none (and `maxTokens` is the gateway's own choice, e.g. 0 for
   * embeddings, which generate no output).
   */
  output?: AskedOutput | undefined;
}

/** The demand of a chat request: its input's JSON size and the caller's output bound, if any. */
export function chatDemand(
  messages: number,
  inputChars: number,
  output: AskedOutput | undefined,
): RequestDemand {
  return { messages, inputChars, maxTokens: output?.tokens, output };
}
