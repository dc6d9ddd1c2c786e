/**
 * Which providers of a config can be called from this process, and what the others need: the
 * lines `serve` and `start` print before the first request, so that a missing key is read at
 * start-up instead of in a 503.
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { SwitchyardConfig } from '../config/switchyard-config.js';
import { envProviderAccess } from '../wiring/env-provider-access.js';

/** One provider's state here. */
export type ProviderKeyState =
  /** `via`: the variable its key came from, or why it needs none. */
  | { provider: string; state: 'live'; via: string }
  /** `setting`: what to set (a variable, or the config field to add). */
  | { provider: string; state: 'missing'; setting: string };

/** Environment variables that give the AWS SDK's default chain credentials without a file. */
const AWS_CREDENTIAL_VARS = [
  'AWS_ACCESS_KEY_ID',
  'AWS_PROFILE',
  'AWS_WEB_IDENTITY_TOKEN_FILE',
  'AWS_CONTAINER_CREDENTIALS_FULL_URI',
  'AWS_CONTAINER_CREDENTIALS_RELATIVE_URI',
] as const;

/**
 * The state of every provider that some model of `config` uses, in config order. A keyed
 * provider is live when its key is readable now (the same rule as an attempt's: a blank variable
 * is no key); one that names no key (a local server, a fake) is live as "no key needed". A
 * `bedrock` provider is live when the environment or `~/.aws` holds AWS credentials (the SDK's
 * chain); an instance role is not looked for.
 */
export function providerKeyStates(config: SwitchyardConfig, env: NodeJS.ProcessEnv): ProviderKeyState[] {
  const used = new Set(Object.values(config.models).map((m) => m.provider));
  const access = envProviderAccess(config, env);
  const states: ProviderKeyState[] = [];
  for (const [provider, settings] of Object.entries(config.providers)) {
    if (!used.has(provider)) continue;
    if (settings.type === 'bedrock') {
      states.push(
        awsCredentialsPresent(env)
          ? { provider, state: 'live', via: 'AWS credentials' }
          : { provider, state: 'missing', setting: 'AWS credentials (AWS_PROFILE or AWS_ACCESS_KEY_ID)' },
      );
      continue;
    }
    const key = access.apiKey(provider);
    if (key === undefined) {
      states.push({ provider, state: 'missing', setting: missingSetting(access.keyHint(provider)) });
    } else {
      const variable = access.callerHint?.(provider);
      const fromVariable = variable !== undefined && (env[variable]?.trim() ?? '') !== '';
      states.push({ provider, state: 'live', via: fromVariable ? variable : 'no key needed' });
    }
  }
  return states;
}

/** A hint that is a config field path (`providers.x.apiKeyEnv`) is something to add, not to set. */
function missingSetting(hint: string): string {
  return hint.startsWith('providers.') ? `${hint} in the config` : hint;
}

function awsCredentialsPresent(env: NodeJS.ProcessEnv): boolean {
  if (AWS_CREDENTIAL_VARS.some((name) => (env[name]?.trim() ?? '') !== '')) return true;
  const home = env.HOME?.trim() || homedir();
  const files = [env.AWS_SHARED_CREDENTIALS_FILE?.trim() || join(home, '.aws', 'credentials')];
  files.push(env.AWS_CONFIG_FILE?.trim() || join(home, '.aws', 'config'));
  return files.some((file) => existsSync(file));
}

/**
 * The summary lines, e.g. `providers live: openai (OPENAI_API_KEY)` and
 * `providers without a key: google (set GEMINI_API_KEY); their models are skipped (not_configured)`.
 */
export function keySummaryLines(states: readonly ProviderKeyState[]): string[] {
  const live = states.flatMap((s) => (s.state === 'live' ? [`${s.provider} (${s.via})`] : []));
  const missing = states.flatMap((s) => (s.state === 'missing' ? [`${s.provider} (set ${s.setting})`] : []));
  const lines = [`providers live: ${live.join(', ') || 'none'}`];
  if (missing.length > 0) {
    lines.push(
      `providers without a key: ${missing.join(', ')}; their models are skipped (not_configured): set the variable and restart`,
    );
  }
  return lines;
}
