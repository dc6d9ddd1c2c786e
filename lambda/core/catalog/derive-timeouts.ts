import { ConfigError } from '../errors.js';
import type { AttemptTimeouts } from '../router/route-types.js';
import type { TimeoutsConfig } from './timeouts-config-schema.js';

const FIELDS = ['connectMs', 'firstByteMs', 'totalMs', 'idleMs'] as const;

/**
 * The one place a route's time limits are worked out (docs/configuration.md#timeouts). Each
 * field is the route's own `timeouts` field, else its `timeoutMs`, else (for a further route)
 * the model's value: so `timeoutMs: N` alone means every limit is N, as it always did. Throws a
 * `ConfigError` naming the field (`path` is the model or route, e.g. `models.a.routes[0]`) when
 * the limits are out of order: connect within first byte, first byte within total.
 */
export function deriveTimeouts(
  path: string,
  own: { timeouts?: TimeoutsConfig | undefined; timeoutMs?: number | undefined },
  inherited?: AttemptTimeouts,
): AttemptTimeouts {
  const pick = (field: (typeof FIELDS)[number]): number => {
    const value = own.timeouts?.[field] ?? own.timeoutMs ?? inherited?.[field];
    if (value === undefined) throw new ConfigError(`${path}.timeoutMs`, 'is required');
    return value;
  };
  const timeouts: AttemptTimeouts = {
    connectMs: pick('connectMs'),
    firstByteMs: pick('firstByteMs'),
    totalMs: pick('totalMs'),
    idleMs: pick('idleMs'),
  };
  inOrder(path, timeouts, 'connectMs', 'firstByteMs');
  inOrder(path, timeouts, 'firstByteMs', 'totalMs');
  return Object.freeze(timeouts);
}

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
