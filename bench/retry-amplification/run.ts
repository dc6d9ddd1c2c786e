/**
 * Upstream calls and wall time per exhausted request when a client library meets a chain whose
 * every route answers 503 (docs/http-api.md#retry-advice): openai-node, @anthropic-ai/sdk, the
 * Vercel AI SDK and LangChain JS (./clients.ts), at their defaults and with the documented
 * `maxRetries`, against the in-process gateway (test/helpers/gateway-harness.ts) and the fakes.
 *
 * "before" is the same gateway behind a loopback proxy that strips the retry advice
 * (`x-should-retry`, `retry-after-ms`) from every answer: the wire as it was before the advice.
 * "after" is the gateway as it is. One request per cell, loopback only. Runs that their client
 * would keep retrying for long (LangChain's default: exponential backoff from 1 s, six retries)
 * are aborted at the cap, `--cap-s N` (default 20 s), and the cell says "capped".
 *
 *   npm run bench:retry-amplification [-- --cap-s 120]
 */
import { parseArgs } from 'node:util';
import { startGatewayHarness } from '../../test/helpers/gateway-harness.js';
import { CLIENT_CASES, type ClientCase } from './clients.js';
import { startStrippingProxy } from './strip-advice-proxy.js';

const { values } = parseArgs({ options: { 'cap-s': { type: 'string', default: '20' } } });
const capMs = Number(values['cap-s']) * 1000;
if (!(capMs > 0)) throw new Error(`--cap-s: expected a positive number of seconds, got ${values['cap-s']}`);

interface Cell {
  /** Upstream calls the fakes received. */
  calls: number;
  /** Times the gateway ran the chain (request ledger lines). */
  runs: number;
  ms: number;
  capped: boolean;
}

/** One exhausted request through `client`, advice stripped or not. */
async function measure(client: ClientCase, stripAdvice: boolean): Promise<Cell> {
  const h = await startGatewayHarness({ p: { chain: 'a,b' } });
  h.openai.setDefault('*', { status: 503 });
  const proxy = stripAdvice ? await startStrippingProxy(h.url) : undefined;
  const controller = new AbortController();
  const started = performance.now();
  // What the capped run has cost when the cap ends it: a client may notice the abort only at its next attempt.
  let atCap: Cell | undefined;
  const timer = client.capped
    ? setTimeout(() => {
        atCap = { calls: h.openai.requests.length, runs: h.requests().length, ms: capMs, capped: true };
        controller.abort();
      }, capMs)
    : undefined;
  let succeeded = false;
  try {
    await client.call(proxy?.url ?? h.url, controller.signal);
    succeeded = true;
  } catch {
    // Expected: every route answers 503.
  }
  const ms = performance.now() - started;
  clearTimeout(timer);
  if (succeeded) throw new Error(`${client.label}: the request succeeded though every route answers 503`);
  const cell = atCap ?? { calls: h.openai.requests.length, runs: h.requests().length, ms, capped: false };
  await proxy?.close();
  await h.close();
  return cell;
}

const seconds = (ms: number) => (ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`);
const runs = (n: number) => `${n} ${n === 1 ? 'run' : 'runs'}`;
const show = (c: Cell) =>
  c.capped
    ? `${c.calls} calls (${runs(c.runs)}) in the first ${seconds(c.ms)}, then capped`
    : `${c.calls} calls (${runs(c.runs)}), ${seconds(c.ms)}`;

console.log(`Upstream calls per exhausted request (every route 503; chain a,b; cap ${capMs / 1000} s):\n`);
console.log('| client, settings | before (advice stripped) | after |');
console.log('|---|---|---|');
for (const client of CLIENT_CASES) {
  const before = await measure(client, true);
  const after = await measure(client, false);
  console.log(`| ${client.label} | ${show(before)} | ${show(after)} |`);
}
// A capped client may still hold a backoff timer; the figures are printed.
process.exit(0);
