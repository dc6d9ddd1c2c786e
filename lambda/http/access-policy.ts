import type { MiddlewareHandler } from 'hono';
import type { SwitchyardConfig } from '../core/catalog/config-schema.js';
import type { HttpEnv } from './http-env.js';
import { errorBody, errorResponse } from './openai-errors.js';

/**
 * Who may read what beyond their own requests, by caller key NAME. Only consulted when caller
 * authentication is on; with it off (a laptop) every reader is the operator.
 */
export interface AccessPolicy {
  /** True for a key listed in `auth.operatorKeys`. */
  isOperator(keyName: string): boolean;
  /** True when the key may read the jobs of `schedule` (`schedules.<name>.readers`, or an operator). */
  readsSchedule(keyName: string, schedule: string): boolean;
}

/** The policy a config describes: `auth.operatorKeys` and each schedule's `readers`. */
export function accessPolicyFromConfig(config: Pick<SwitchyardConfig, 'auth' | 'schedules'>): AccessPolicy {
  const operators = new Set(config.auth?.operatorKeys ?? []);
  const readers = new Map(Object.entries(config.schedules).map(([name, s]) => [name, new Set(s.readers)]));
  return {
    isOperator: (keyName) => operators.has(keyName),
    readsSchedule: (keyName, schedule) =>
      operators.has(keyName) || (readers.get(schedule)?.has(keyName) ?? false),
  };
}

/**
 * Middleware for operator views (`/v1/breakers`, `/v1/pipelines`): 403 `permission_denied` for a
 * caller key that is not an operator key. The routes are documented, so 403 hides nothing a 404
 * would; it tells a caller at once that the key, not the URL, is wrong.
 */
export function operatorOnly(policy: () => AccessPolicy): MiddlewareHandler<HttpEnv> {
  return async (c, next) => {
    const name = c.get('callerKeyName');
    // No name: authentication is off (the auth middleware sets one for every caller it admits).
    if (name === undefined || policy().isOperator(name)) return next();
    return errorResponse(
      403,
      errorBody(
        `this caller key may not read ${new URL(c.req.url).pathname}: it needs an operator key (auth.operatorKeys)`,
        'invalid_request_error',
        'permission_denied',
      ),
    );
  };
}

/**
 * Middleware for the operator console's endpoints (`/v1/operator/*`): they change routing, so
 * unlike the operator views they are refused even with authentication off (a laptop with no
 * `auth` block): 403 `permission_denied` unless the caller presented an operator key. The key
 * travels in a header, never a cookie, so another site cannot make a browser send it.
 */
export function operatorKeyRequired(policy: () => AccessPolicy): MiddlewareHandler<HttpEnv> {
  return async (c, next) => {
    const name = c.get('callerKeyName');
    if (name !== undefined && policy().isOperator(name)) return next();
    const why =
      name === undefined
        ? 'the operator console needs an operator key: configure auth.keys and auth.operatorKeys and send the key as Authorization: Bearer'
        : `the caller key '${name}' is not an operator key (auth.operatorKeys)`;
    return errorResponse(403, errorBody(why, 'invalid_request_error', 'permission_denied'));
  };
}
