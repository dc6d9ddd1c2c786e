import OpenAI from 'openai';
import { parseConfig } from '../../lambda/core/catalog/parse-config.js';
import type { LedgerEntry } from '../../lambda/core/ledger/ledger-entry.js';
import { silentLogger } from '../../lambda/core/logger.js';
import { startFakeBedrock } from '../../lambda/dev/fakes/bedrock-fake.js';
import type { FakeUpstream } from '../../lambda/dev/fakes/fake-upstream.js';
import { startFakeOpenAI } from '../../lambda/dev/fakes/openai-fake.js';
import { createLocalGateway } from '../../lambda/wiring/create-local-gateway.js';
import { envProviderAccess } from '../../lambda/wiring/env-provider-access.js';
import { type RunningServer, startServer } from '../../lambda/wiring/start-server.js';

export const PRICE = { inputPerMTok: 2, outputPerMTok: 8 };

/**
 * The real gateway over real HTTP on loopback, in front of the two fakes. Models: `a`, `b`, `c`
 * on the OpenAI-compatible fake (raw ids `model-a`…), `br` on the Bedrock fake (`bedrock-model`), and
 * `quick` (`model-quick`, a 400 ms attempt timeout) for silences. With `keyless`, also model `s`
 * (`model-s`) of provider `spare`, whose key `SPARE_KEY` is unset until a test writes `h.env.SPARE_KEY`.
 */
export async function startGatewayHarness(
  pipelines: Record<string, unknown>,
  options: {
    maxBodyBytes?: number;
    /** Adds a provider `spare` (key `SPARE_KEY`, unset) with one model `s`. */
    keyless?: boolean;
    /** Adds to the config before it is parsed (limits, auth, model settings...). */
    configure?: (config: Record<string, unknown> & { models: Record<string, object> }) => void;
  } = {},
) {
  const openai = await startFakeOpenAI();
  const bedrock = await startFakeBedrock();
  const raw = {
    providers: {
      fake: { type: 'openai', baseURL: openai.url, apiKeyEnv: 'FAKE_KEY' },
      br: { type: 'bedrock', region: 'us-east-1', endpoint: bedrock.url },
      ...(options.keyless ? { spare: { type: 'openai', baseURL: openai.url, apiKeyEnv: 'SPARE_KEY' } } : {}),
    },
    models: {
      a: { provider: 'fake', model: 'model-a', price: PRICE },
      b: { provider: 'fake', model: 'model-b', price: PRICE },
      c: { provider: 'fake', model: 'model-c', price: PRICE },
      br: { provider: 'br', model: 'bedrock-model', price: PRICE },
      quick: { provider: 'fake', model: 'model-quick', timeoutMs: 400 },
      ...(options.keyless ? { s: { provider: 'spare', model: 'model-s' } } : {}),
    },
    pipelines,
  };
  options.configure?.(raw as Parameters<NonNullable<typeof options.configure>>[0]);
  const config = parseConfig(raw);
  const ledger: LedgerEntry[] = [];
  const env: NodeJS.ProcessEnv = { FAKE_KEY: 'sk-test-secret-key-0123456789abcdef' };
  const local = createLocalGateway({
    config,
    env,
    log: silentLogger,
    ledger: (entry) => ledger.push(entry),
    access: {
      ...envProviderAccess(config, env),
      bedrockCredentials: { accessKeyId: 'AKIDFAKE', secretAccessKey: 'fake' },
    },
    maxBodyBytes: options.maxBodyBytes,
  });
  const server: RunningServer = await startServer(local.app, { port: 0, host: '127.0.0.1' });
  const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'caller-key', maxRetries: 0 });
  return {
    url: server.url,
    client,
    /** The environment the gateway reads provider keys from, at every attempt. */
    env,
    openai,
    bedrock,
    ledger,
    attempts: () => ledger.filter((e) => e.type === 'attempt'),
    requests: () => ledger.filter((e) => e.type === 'request'),
    /** Upstream requests the fakes received, by raw model id. */
    received: (model: string): number =>
      [openai, bedrock].reduce((n, f: FakeUpstream) => n + f.requestsFor(model).length, 0),
    post: (body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${server.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      }),
    async close() {
      await server.close(1_000);
      await Promise.all([openai.close(), bedrock.close()]);
    },
  };
}

export type GatewayHarness = Awaited<ReturnType<typeof startGatewayHarness>>;

export const HELLO = { messages: [{ role: 'user', content: 'hello there' }] };

/** Polls until `condition` holds (for things that happen on the other side of a socket). */
export async function waitFor(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > until) throw new Error('timed out waiting for a condition');
    await new Promise((r) => setTimeout(r, 10));
  }
}
