/**
 * The config `switchyard start` serves when no provider has a key: the same models and pipelines,
 * every provider pointed at a local fake upstream of its kind, so that the first request a
 * newcomer sends answers 200 and shows the gateway's headers.
 */
import { parseConfig, type SwitchyardConfig } from '../config/switchyard-config.js';
import type { RunningFakeUpstreams } from '../dev/fakes/run-fake-upstreams.js';

/** Static Bedrock credentials for the fake: it does not check signatures, the SDK insists on some. */
export const FAKE_AWS_CREDENTIALS = { accessKeyId: 'fake', secretAccessKey: 'fake' } as const;

/**
 * `config` with each provider rewritten onto `fakes`: OpenAI-compatible providers (and `vertex`,
 * which speaks the same wire) to the OpenAI fake, `anthropic` to the Anthropic fake, `bedrock` to
 * the Bedrock fake. Key settings are dropped (a fake needs none); everything else is kept and the
 * result is validated like a config file.
 */
export function tryConfig(
  config: SwitchyardConfig,
  fakes: Pick<RunningFakeUpstreams, 'openai' | 'bedrock' | 'anthropic'>,
): SwitchyardConfig {
  const providers: Record<string, unknown> = {};
  for (const [name, provider] of Object.entries(config.providers)) {
    if (provider.type === 'bedrock') {
      providers[name] = { ...provider, endpoint: fakes.bedrock.url };
    } else if (provider.type === 'anthropic') {
      const { apiKeyEnv: _env, apiKeySecret: _secret, ...rest } = provider;
      providers[name] = { ...rest, baseURL: fakes.anthropic.url };
    } else if (provider.type === 'openai') {
      const { apiKeyEnv: _env, apiKeySecret: _secret, ...rest } = provider;
      providers[name] = { ...rest, baseURL: fakes.openai.url };
    } else {
      // A Vertex provider's project and token settings mean nothing to a fake: a plain one stands in.
      providers[name] = { type: 'openai', baseURL: fakes.openai.url };
    }
  }
  return parseConfig({ ...config, providers });
}

/**
 * A request a newcomer can paste: the first pipeline, a one-line prompt, `-i` so that the
 * `x-switchyard-*` headers show. With caller keys configured, a placeholder for one.
 */
export function curlExample(url: string, pipeline: string, callerKeys: boolean): string {
  const body = JSON.stringify({ model: pipeline, messages: [{ role: 'user', content: 'Say hello' }] });
  const auth = callerKeys ? ` -H 'authorization: Bearer <your caller key>'` : '';
  return `curl -si ${url}/v1/chat/completions -H 'content-type: application/json'${auth} -d '${body}'`;
}
