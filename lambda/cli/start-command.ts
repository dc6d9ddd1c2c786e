/**
 * `switchyard start` (`npm start`): the first command of the README. With a key for some provider
 * it is `serve` (which says which providers are live and what the others need). With none, a
 * gateway that cannot answer would be the first thing a newcomer meets, so it starts the fake
 * upstreams and serves the same pipelines on them, and prints a request to paste.
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../config/config-file.js';
import { runFakeUpstreams } from '../dev/fakes/run-fake-upstreams.js';
import { envProviderAccess } from '../wiring/env-provider-access.js';
import { type CliIo, processStopSignal, type StopSignal } from './cli-io.js';
import { type ProviderKeyState, providerKeyStates } from './provider-key-summary.js';
import { serveCommand } from './serve-command.js';
import { SERVE_USAGE } from './serve-flags.js';
import { curlExample, FAKE_AWS_CREDENTIALS, tryConfig } from './try-config.js';

export const START_USAGE =
  `usage: switchyard start [serve options]\n` +
  'serve, or, when no provider of the config has a key here, serve on local fake upstreams\n' +
  SERVE_USAGE.replace('usage: switchyard serve', '  options as for switchyard serve');

/** `switchyard start`: `serve` with the keys it has, or on the fakes when it has none. */
export async function startCommand(
  args: string[],
  io: CliIo,
  stopSignal: StopSignal = processStopSignal,
): Promise<number> {
  // Only --config matters here; serve parses (and refuses) the rest.
  const { values } = parseArgs({ args, options: { config: { type: 'string' } }, strict: false });
  const flag = typeof values.config === 'string' ? values.config : undefined;
  const loaded = loadConfig({ flag, env: io.env, cwd: io.cwd });
  const states = providerKeyStates(loaded.config, io.env);
  const callerKeys = loaded.config.auth !== undefined;
  const tryIt = (url: string, pipelines: readonly string[]) =>
    pipelines.length === 0 ? [] : ['try it:', `  ${curlExample(url, pipelines[0] ?? '', callerKeys)}`];
  if (states.some((s) => s.state === 'live')) return serveCommand(args, io, stopSignal, { after: tryIt });

  io.stdout(
    'switchyard start: no provider has a key here, so every provider is served by a local fake upstream\n' +
      `  (answers "Hello from <model>."). For real answers set ${needed(states)} and run npm start again.\n`,
  );
  const fakes = await runFakeUpstreams({ log: () => {} });
  try {
    const config = tryConfig(loaded.config, fakes);
    const access = { ...envProviderAccess(config, io.env), bedrockCredentials: FAKE_AWS_CREDENTIALS };
    return await serveCommand(args, io, stopSignal, {
      loaded: { config, origin: loaded.origin },
      access,
      keySummary: [
        `providers live: none; fakes stand in: OpenAI-compatible ${fakes.openai.url}, Bedrock ${fakes.bedrock.url}, Anthropic ${fakes.anthropic.url}`,
        `script a fault (next gpt-4o-mini call answers 429): curl -s -X POST ${fakes.openai.url.slice(0, -'/v1'.length)}/_fake/script -H 'content-type: application/json' -d '{"model":"gpt-4o-mini","faults":[{"status":429}]}'`,
      ],
      after: tryIt,
    });
  } finally {
    await fakes.close();
  }
}

/** The settings the providers need, e.g. `OPENAI_API_KEY (openai), GEMINI_API_KEY (google)`. */
function needed(states: readonly ProviderKeyState[]): string {
  const missing = states.flatMap((s) => (s.state === 'missing' ? [`${s.setting} (${s.provider})`] : []));
  return missing.length > 0 ? `one of ${missing.join(', ')}` : 'a provider key (docs/configuration.md)';
}
