/**
 * The deterministic answer both fakes give: text, stream pieces, finish reason and usage are pure
 * functions of the request and the fault, so tests can assert exact values.
 */
import type { Fault } from './fault.js';

/** Characters per token in the fakes' tokenizer: tokens = ceil(chars / 4). */
export const CHARS_PER_TOKEN = 4;

/** Tool-call arguments are streamed in pieces of this many characters. */
const ARGUMENT_PIECE_CHARS = 16;

/**
 * Why the answer ended, in neutral terms; each fake maps it to its wire value.
 * `stop_sequence` is OpenAI `stop`; `guardrail` is OpenAI `content_filter`.
 */
export type FakeFinish = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'guardrail' | 'stop_sequence';

/** A tool call the fake makes. */
export interface FakeToolCall {
  id: string;
  name: string;
  input: Record<string, unknown>;
  /** `input` as JSON text (OpenAI `function.arguments`). */
  arguments: string;
}

/** Everything a fake needs to render one answer, streamed or not. */
export interface AnswerPlan {
  /** Answer text; `''` for a tool call. */
  text: string;
  /** Stream pieces: words of `text` (leading space kept), or pieces of the tool-call arguments. */
  chunks: string[];
  toolCall: FakeToolCall | undefined;
  finish: FakeFinish;
  /** The stop sequence that ended the text, when one did (Anthropic reports it). */
  stopSequence?: string | undefined;
  promptTokens: number;
  completionTokens: number;
}

/** The provider-neutral facts of a request that shape the answer. */
export interface AnswerInput {
  model: string;
  fault: Fault;
  /** Request sequence number, for deterministic ids. */
  seq: number;
  /** Characters of text in the prompt (system, messages, tool results). */
  promptChars: number;
  /** Output token limit from the request, if any. */
  maxTokens?: number | undefined;
  stop?: readonly string[] | undefined;
  /** Whether the request offered tools (a tool call is only made then). */
  toolsOffered: boolean;
  /** Prefix of tool-call ids: `call_` (OpenAI) or `tooluse_` (Bedrock). */
  toolIdPrefix: string;
  /**
   * The text of a trailing assistant message (a prefill), on the fakes that continue one: when
   * the answer starts with it, only what follows is written (less `prefillEchoWords` words).
   */
  prefill?: string | undefined;
}

/** The signature the fakes sign scripted reasoning with: `sig_fake_<seq>` (the request's sequence number). */
export const fakeSignature = (seq: number): string => `sig_fake_${seq}`;

/** Tokens for a number of characters, the fakes' tokenizer. */
export function tokensFor(chars: number): number {
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

/** Plans the answer: text (stop sequences, then the token limit), tool call, finish, usage. */
export function planAnswer(input: AnswerInput): AnswerPlan {
  const { fault } = input;
  const promptTokens = tokensFor(input.promptChars);
  if (fault.toolCall && input.toolsOffered) {
    const args = fault.toolCall.arguments ?? {};
    const json = JSON.stringify(args);
    return {
      text: '',
      chunks: splitEvery(json, ARGUMENT_PIECE_CHARS),
      toolCall: {
        id: `${input.toolIdPrefix}fake_${input.seq}`,
        name: fault.toolCall.name,
        input: args,
        arguments: json,
      },
      finish: 'tool_calls',
      promptTokens,
      completionTokens: tokensFor(fault.toolCall.name.length + json.length),
    };
  }
  let text = continuationOf(
    fault.text ?? `Hello from ${input.model}.`,
    input.prefill,
    fault.prefillEchoWords,
  );
  let finish: FakeFinish = 'stop';
  let stopSequence: string | undefined;
  for (const stop of input.stop ?? []) {
    const at = stop ? text.indexOf(stop) : -1;
    if (at !== -1) {
      text = text.slice(0, at);
      finish = 'stop_sequence';
      stopSequence = stop;
    }
  }
  if (input.maxTokens !== undefined && tokensFor(text.length) > input.maxTokens) {
    text = text.slice(0, input.maxTokens * CHARS_PER_TOKEN);
    finish = 'length';
  }
  return {
    text,
    chunks: splitWords(text),
    toolCall: undefined,
    finish: fault.finishReason ?? finish,
    stopSequence: fault.finishReason === undefined ? stopSequence : undefined,
    promptTokens,
    completionTokens: tokensFor(text.length),
  };
}

/**
 * What a model writes after a prefill: the rest of `text` when it starts with `prefill`, backed up
 * by `echoWords` words (written again); the whole `text` when it does not (the model starts over).
 */
export function continuationOf(text: string, prefill: string | undefined, echoWords = 0): string {
  if (prefill === undefined || prefill === '' || !text.startsWith(prefill)) return text;
  const words = splitWords(prefill);
  const echoed = words.slice(Math.max(0, words.length - echoWords)).join('');
  return text.slice(prefill.length - echoed.length);
}

/** Splits text into word pieces that keep their leading whitespace, like model tokens. */
export function splitWords(text: string): string[] {
  return text.match(/\s*\S+|\s+$/g) ?? [];
}

function splitEvery(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}
