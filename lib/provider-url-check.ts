import type { SwitchyardConfig } from '../lambda/config/switchyard-config.js';
import { isLoopbackHost } from '../lambda/core/loopback.js';

/** Each provider URL a deployment would call, with the config field that holds it. */
function providerURLs(config: SwitchyardConfig): { field: string; url: string }[] {
  return Object.entries(config.providers).flatMap(([name, provider]) => {
    const field = (key: string) => `providers.${name}.${key}`;
    if (provider.type === 'bedrock')
      return provider.endpoint === undefined ? [] : [{ field: field('endpoint'), url: provider.endpoint }];
    return provider.baseURL === undefined ? [] : [{ field: field('baseURL'), url: provider.baseURL }];
  });
}

/**
 * Refuses a deployed config whose provider URL is plain http:// or points at this machine (a
 * config for the local fakes): from a Lambda the one sends prompts and keys in clear text, the
 * other reaches nothing. `aws.allowInsecureBaseURLs: true` says it is meant. Throws an error naming
 * the field; it shows the URL's scheme and host only (a URL may carry credentials).
 */
export function checkProviderURLs(config: SwitchyardConfig): void {
  if (config.aws.allowInsecureBaseURLs) return;
  for (const { field, url } of providerURLs(config)) {
    const parsed = new URL(url);
    const loopback = isLoopbackHost(parsed.hostname);
    const plain = parsed.protocol === 'http:';
    if (!loopback && !plain) continue;
    const what = [plain ? 'plain http://' : '', loopback ? 'a loopback host (this machine)' : '']
      .filter(Boolean)
      .join(' to ');
    throw new Error(
      `${field}: ${parsed.protocol}//${parsed.host} is ${what}; a deployed Lambda ${
        loopback ? 'cannot reach it' : 'would send prompts and keys in clear text'
      }. Deploy a config with https:// provider URLs, or set aws.allowInsecureBaseURLs: true if this is meant`,
    );
  }
}
