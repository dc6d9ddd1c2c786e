/**
 * The client libraries the retry-amplification bench drives, each as an application builds it:
 * one chat request for pipeline `p` against a gateway base URL (`http://127.0.0.1:<port>`), which
 * rejects when the request fails. `signal` ends a run early (the bench's cap on slow backoffs).
 */
import { createOpenAI } from '@ai-sdk/openai';
import Anthropic from '@anthropic-ai/sdk';
import { ChatOpenAI } from '@langchain/openai';
import { generateText } from 'ai';
import OpenAI from 'openai';

/** One client configuration: its table label and one request through it. */
export interface ClientCase {
  label: string;
  /** Whether the run is capped (`signal` aborts it) rather than left to its own backoff. */
  capped?: boolean;
  call(base: string, signal: AbortSignal): Promise<unknown>;
}

const PROMPT = 'hello there';
const KEY = 'caller-key';

const vercel = (base: string) => createOpenAI({ baseURL: `${base}/v1`, apiKey: KEY });
const langchain = (base: string, maxRetries?: number) =>
  new ChatOpenAI({
    model: 'p',
    apiKey: KEY,
    configuration: { baseURL: `${base}/v1` },
    ...(maxRetries === undefined ? {} : { maxRetries }),
  });

/** The rows of the bench's table, in order. */
export const CLIENT_CASES: ClientCase[] = [
  {
    label: 'openai-node 6 `chat.completions.create` (defaults)',
    call: (base, signal) =>
      new OpenAI({ baseURL: `${base}/v1`, apiKey: KEY }).chat.completions.create(
        { model: 'p', messages: [{ role: 'user', content: PROMPT }] },
        { signal },
      ),
  },
  {
    label: 'openai-node 6 `responses.create` (defaults)',
    call: (base, signal) =>
      new OpenAI({ baseURL: `${base}/v1`, apiKey: KEY }).responses.create(
        { model: 'p', input: PROMPT },
        { signal },
      ),
  },
  {
    label: '@anthropic-ai/sdk `messages.create` (defaults)',
    call: (base, signal) =>
      new Anthropic({ baseURL: base, apiKey: KEY }).messages.create(
        { model: 'p', max_tokens: 16, messages: [{ role: 'user', content: PROMPT }] },
        { signal },
      ),
  },
  {
    label: "Vercel AI SDK `generateText(openai('p'))`, /v1/responses (defaults)",
    call: (base, abortSignal) => generateText({ model: vercel(base)('p'), prompt: PROMPT, abortSignal }),
  },
  {
    label: "Vercel AI SDK `generateText(openai.chat('p'))`, /v1/chat/completions (defaults)",
    call: (base, abortSignal) => generateText({ model: vercel(base).chat('p'), prompt: PROMPT, abortSignal }),
  },
  {
    label: "Vercel AI SDK `generateText(openai('p'))`, `maxRetries: 0`",
    call: (base, abortSignal) =>
      generateText({ model: vercel(base)('p'), prompt: PROMPT, maxRetries: 0, abortSignal }),
  },
  {
    label: "Vercel AI SDK `generateText(openai.chat('p'))`, `maxRetries: 0`",
    call: (base, abortSignal) =>
      generateText({ model: vercel(base).chat('p'), prompt: PROMPT, maxRetries: 0, abortSignal }),
  },
  {
    label: 'LangChain `ChatOpenAI.invoke` (defaults)',
    capped: true,
    call: (base, signal) => langchain(base).invoke(PROMPT, { signal }),
  },
  {
    label: 'LangChain `ChatOpenAI.invoke`, `maxRetries: 0`',
    call: (base, signal) => langchain(base, 0).invoke(PROMPT, { signal }),
  },
];
