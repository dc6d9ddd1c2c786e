import type { SwitchyardConfig } from '../config/switchyard-config.js';
import { isLoopbackHost } from '../core/loopback.js';
import { CliUsageError } from './cli-io.js';

export { isLoopbackHost };

/**
 * Decides whether `serve` may listen on `host` with this config, and what to say about it.
 * Beyond loopback with authentication off (no `auth` block) it refuses, unless `insecure` (the
 * `--insecure` flag) says the operator means it; then it warns. An `auth` block with no key is
 * reported, since it refuses every caller.
 *
 * @returns warning lines to print (possibly none). Throws `CliUsageError` when refusing.
 */
export function checkServeExposure(host: string, config: SwitchyardConfig, insecure: boolean): string[] {
  const warnings: string[] = [];
  if (config.auth === undefined && !isLoopbackHost(host)) {
    if (!insecure) {
      throw new CliUsageError(
        `refusing to listen on ${host} without caller keys: anyone who can reach it could use your provider keys. ` +
          'Add an auth section (auth.keys) to the config, listen on 127.0.0.1, or pass --insecure',
      );
    }
    warnings.push(
      `warning: listening on ${host} with caller authentication OFF (--insecure): anyone who can reach it can use your provider keys`,
    );
  }
  if (config.auth !== undefined && Object.keys(config.auth.keys).length === 0) {
    warnings.push('warning: auth.keys is empty: every caller is refused until a key is added');
  }
  return warnings;
}
