/**
 * Upstream calls per exhausted request when a client library with its default settings meets a
 * chain whose every route answers 503 (docs/http-api.md#retry-advice): openai-node and
 * @anthropic-ai/sdk against the in-process gateway (test/helpers/gateway-harness.ts) and the fakes.
 *
 * "before" is the same gateway behind a loopback proxy that strips the retry advice
 * (`x-should-retry`, `retry-after-ms`) from every answer: the wire as it was before the advice.
 * "after" is the gateway as it is. Loopback only; a few seconds (the SDKs' own backoff).
 *
 *   npm run bench:retry-amplification
 */
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { startGatewayHarness } from '../../test/helpers/gateway-harness.js';

const ADVICE = new Set(['x-should-retry', 'retry-after-ms']);

/** A pass-through to `target` that drops the advice headers: the "before" wire. */
async function strippingProxy(target: string): Promise<{ url: string; close(): Promise<void> }> {
  const upstream = new URL(target);
  const server = createServer((req, res) => {
    const out = httpRequest(
      {
        host: upstream.hostname,
        port: upstream.port,
        path: req.url,
        method: req.method,
        headers: req.headers,
      },
      (answer) => {
        const headers = Object.fromEntries(Object.entries(answer.headers).filter(([k]) => !ADVICE.has(k)));
        res.writeHead(answer.statusCode ?? 502, headers);
        answer.pipe(res);
      },
    );
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

type Client = 'openai-node' | '@anthropic-ai/sdk';

/** One exhausted request through `client`, advice stripped or not: upstream calls, the gateway's attempts per run, ms. */
async function measure(client: Client, stripAdvice: boolean) {
  const h = await startGatewayHarness({ p: { chain: 'a,b' } });
  h.openai.setDefault('*', { status: 503 });
  const proxy = stripAdvice ? await strippingProxy(h.url) : undefined;
  const base = proxy?.url ?? h.url;
  const started = performance.now();
  let attempts = 0;
  try {
    if (client === 'openai-node')
      await new OpenAI({ baseURL: `${base}/v1`, apiKey: 'k' }).chat.completions.create({
        model: 'p',
        messages: [{ role: 'user', content: 'hello' }],
      });
    else
      await new Anthropic({ baseURL: base, apiKey: 'k' }).messages.create({
        model: 'p',
        max_tokens: 16,
        messages: [{ role: 'user', content: 'hello' }],
      });
  } catch (error) {
    attempts = Number((error as { headers?: Headers }).headers?.get('x-switchyard-attempts') ?? 0);
  }
  const ms = performance.now() - started;
  const calls = h.openai.requests.length;
  await proxy?.close();
  await h.close();
  return { calls, attempts, ms };
}

const rows: string[] = [];
for (const client of ['openai-node', '@anthropic-ai/sdk'] as const) {
  const before = await measure(client, true);
  const after = await measure(client, false);
  rows.push(
    `| ${client} (defaults) | ${before.calls} calls, ${Math.round(before.ms)} ms | ${after.calls} calls, ${Math.round(after.ms)} ms | ${after.attempts} |`,
  );
}
console.log('Upstream calls per exhausted request (every route 503; chain a,b):\n');
console.log('| client | before (advice stripped) | after | gateway attempts per run |');
console.log('|---|---|---|---|');
for (const row of rows) console.log(row);
