import { ConfigError } from '../errors.js';
import type { AttemptTimeouts } from '../router/route-types.js';
import type { TimeoutsConfig } from './timeouts-config-schema.js';

/**
 * The one place a route's time limits are worked out (docs/configuration.md#timeouts). The base
 * is the route's `timeoutMs` for every limit when it sets one, else (a further route) its model's
 * limits; each limit the `timeouts` field sets replaces the base's, and an unset limit never
 * exceeds the one around it (connect within first byte, first byte within total). So
 * `timeoutMs: N` alone means every limit is N, as it always did. `outputTokensPerSec` (a rate,
 * not a limit) is the route's own, else its model's, whatever `timeoutMs` says. Throws a
 * `ConfigError` naming the field (`path` is the model or route, e.g. `models.a.routes[0]`) when
 * the limits it sets are out of that order.
 */
export function deriveTimeouts(
  path: string,
  own: { timeouts?: TimeoutsConfig | undefined; timeoutMs?: number | undefined },
  inherited?: AttemptTimeouts,
): AttemptTimeouts {
  const base = own.timeoutMs === undefined ? inherited : uniform(own.timeoutMs);
  if (!base) throw new ConfigError(`${path}.timeoutMs`, 'is required');
  const set = own.timeouts ?? {};
  const totalMs = set.totalMs ?? base.totalMs;
  const firstByteMs = set.firstByteMs ?? Math.min(base.firstByteMs, totalMs);
  const connectMs = set.connectMs ?? Math.min(base.connectMs, firstByteMs);
  const timeouts: AttemptTimeouts = { connectMs, firstByteMs, totalMs, idleMs: set.idleMs ?? base.idleMs };
  // Only a rate the config sets is carried (the router's default applies otherwise).
  const rate = set.outputTokensPerSec ?? inherited?.outputTokensPerSec;
  if (rate !== undefined) timeouts.outputTokensPerSec = rate;
  inOrder(path, timeouts, 'connectMs', 'firstByteMs');
  inOrder(path, timeouts, 'firstByteMs', 'totalMs');
  return Object.freeze(timeouts);
}

const uniform = (ms: number): AttemptTimeouts => ({
  connectMs: ms,
  firstByteMs: ms,
  totalMs: ms,
  idleMs: ms,
});

function inOrder(
  path: string,
  timeouts: AttemptTimeouts,
  inner: 'connectMs' | 'firstByteMs',
  outer: 'firstByteMs' | 'totalMs',
): void {
  if (timeouts[inner] <= timeouts[outer]) return;
  throw new ConfigError(
    `${path}.timeouts.${inner}`,
    `${timeouts[inner]} ms exceeds ${outer} (${timeouts[outer]} ms): it must fit within it`,
  );
}
