/**
 * The gateway config that points at the fakes (`examples/fakes.config.json` is this, at the
 * default ports; a unit test keeps the two equal). `switchyard fakes --write-config FILE` writes it
 * with the ports the fakes actually bound, so moving a fake never means hand-editing a copy.
 */

/** Where each fake listens: its root URL, e.g. `http://127.0.0.1:4010` (no `/v1`). */
export interface FakeRoots {
  openai: string;
  bedrock: string;
  anthropic: string;
}

/** Per-MTok prices in USD, as the config writes them. */
const price = (inputPerMTok: number, outputPerMTok: number) => ({ inputPerMTok, outputPerMTok });

/**
 * The demo config for fakes at `roots`: two OpenAI-compatible providers on the OpenAI fake (an
 * "official" one and an aggregator), Bedrock and Anthropic on theirs, and the two pipelines the
 * docs walk through (`comment-filter`, `reply-writer`). No keys: the fakes need none.
 */
export function fakesConfig(roots: FakeRoots) {
  return {
    providers: {
      'official-a': { type: 'openai', baseURL: `${roots.openai}/v1` },
      aggregator: { type: 'openai', baseURL: `${roots.openai}/v1` },
      bedrock: { type: 'bedrock', region: 'us-east-1', endpoint: roots.bedrock },
      anthropic: { type: 'anthropic', baseURL: roots.anthropic },
    },
    models: {
      'gpt-mini': { provider: 'official-a', model: 'gpt-4o-mini', price: price(0.15, 0.6) },
      'gemini-flash': { provider: 'official-a', model: 'gemini-2.0-flash', price: price(0.1, 0.4) },
      'llama-or': {
        provider: 'aggregator',
        model: 'meta-llama/llama-3.3-70b-instruct',
        price: price(0.13, 0.4),
      },
      'llama-br': { provider: 'bedrock', model: 'meta.llama3-3-70b-instruct-v1:0', price: price(0.72, 0.72) },
      'claude-fast': { provider: 'anthropic', model: 'claude-haiku-4-5', price: price(1, 5) },
    },
    pipelines: {
      'comment-filter': { chain: '(gpt-mini|gemini-flash),llama-or' },
      'reply-writer': { chain: 'llama-br,claude-fast,gpt-mini' },
    },
  };
}
