/**
 * Starts the three fakes side by side for people trying the gateway by hand (`switchyard fakes`), and
 * prints how to reach and script them.
 */
import { startFakeAnthropic } from './anthropic-fake.js';
import { startFakeBedrock } from './bedrock-fake.js';
import type { FakeUpstream } from './fake-upstream.js';
import { startFakeOpenAI } from './openai-fake.js';

/** Options of {@link runFakeUpstreams}. */
export interface RunFakeUpstreamsOptions {
  /** Port of the OpenAI-compatible fake. Default 0 (a free port). */
  openaiPort?: number | undefined;
  /** Port of the Bedrock Converse fake. Default 0 (a free port). */
  bedrockPort?: number | undefined;
  /** Port of the Anthropic Messages fake. Default 0 (a free port). */
  anthropicPort?: number | undefined;
  /** Interface to bind. Default `127.0.0.1`. */
  host?: string | undefined;
  /** Receives the human-readable lines (URLs, curl examples). */
  log: (line: string) => void;
}

/** The running fakes. */
export interface RunningFakeUpstreams {
  openai: FakeUpstream;
  bedrock: FakeUpstream;
  anthropic: FakeUpstream;
  /** Closes every fake. */
  close(): Promise<void>;
}

/** Starts the OpenAI-compatible, Bedrock and Anthropic fakes and logs their URLs and a scripting example. */
export async function runFakeUpstreams(options: RunFakeUpstreamsOptions): Promise<RunningFakeUpstreams> {
  const openai = await startFakeOpenAI({ port: options.openaiPort, host: options.host });
  let bedrock: FakeUpstream | undefined;
  let anthropic: FakeUpstream;
  try {
    bedrock = await startFakeBedrock({ port: options.bedrockPort, host: options.host });
    anthropic = await startFakeAnthropic({ port: options.anthropicPort, host: options.host });
  } catch (err) {
    await Promise.all([openai.close(), bedrock?.close()]);
    throw err;
  }
  const openaiRoot = openai.url.slice(0, -'/v1'.length);
  const { log } = options;
  log(`fake OpenAI-compatible upstream: ${openai.url}   (provider baseURL)`);
  log(`fake Bedrock Converse upstream:  ${bedrock.url}   (provider endpoint)`);
  log(`fake Anthropic Messages upstream: ${anthropic.url}   (provider baseURL)`);
  log('');
  log(
    'Every request answers "Hello from <model>." unless scripted. Next request to gpt-4o-mini -> 429, Retry-After 5 s:',
  );
  log(
    `  curl -s -X POST ${openaiRoot}/_fake/script -H 'content-type: application/json' -d '{"model":"gpt-4o-mini","faults":[{"status":429,"retryAfter":5}]}'`,
  );
  log('Throttle every Bedrock call to one model until reset:');
  log(
    `  curl -s -X POST ${bedrock.url}/_fake/default -H 'content-type: application/json' -d '{"model":"meta.llama3-3-70b-instruct-v1:0","fault":{"status":429}}'`,
  );
  log(
    `Received requests: curl -s ${openaiRoot}/_fake/requests   Reset: curl -s -X POST ${openaiRoot}/_fake/reset`,
  );
  log(
    'Fault fields: status retryAfter latencyMs bodyDelayMs hang reset cutAfterChunks stallAfterChunks malformed errorMessage errorCode text toolCall finishReason chunkDelayMs tokensPerSec cacheReadTokens cacheWriteTokens reasoning redactedReasoning reasoningTokens',
  );
  return {
    openai,
    bedrock,
    anthropic,
    close: async () => {
      await Promise.all([openai.close(), bedrock.close(), anthropic.close()]);
    },
  };
}
