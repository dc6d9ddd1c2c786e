import type { Hono } from 'hono';
import type { Catalog } from '../core/catalog/catalog.js';
import type { Gateway } from '../core/gateway/gateway.js';
import type { Logger } from '../core/logger.js';
import type { GatewayMetrics } from '../core/metrics/gateway-metrics.js';
import { PROMETHEUS_CONTENT_TYPE, renderExposition } from '../core/metrics/prometheus-text.js';
import type { StatusSnapshot } from '../core/status/status-snapshot.js';
import { type AccessPolicy, operatorOnly } from './access-policy.js';
import { type CallerKeyCheck, callerAuth } from './caller-auth.js';
import type { HttpEnv } from './http-env.js';
import { errorBody, errorResponse } from './openai-errors.js';
import { statusPageCsp, statusPageHtml } from './status-page.js';

/** What a person or a scraper may watch (docs/operations.md#metrics). Each part absent: its routes 404. */
export interface ObserveRoutes {
  /** `GET /metrics`. */
  metrics?: GatewayMetrics | undefined;
  /** `GET /status` and `GET /v1/status`. */
  status?:
    | {
        snapshot: () => Promise<StatusSnapshot>;
        refreshMs: number;
        /** The page carries the operator console (docs/operations.md#the-operator-console). Default false. */
        console?: boolean | undefined;
      }
    | undefined;
}

const unavailable = (what: string) =>
  errorResponse(503, errorBody(`${what} cannot be read right now`, 'api_error', 'service_unavailable'), {
    'retry-after': '1',
  });

/**
 * What a disabled endpoint answers: 404 in the OpenAI envelope, naming the flag and the setting
 * that turn it on (a bare `no route for GET /status` left a newcomer guessing).
 */
const disabled = (what: string, flag: string, setting: string) => () =>
  errorResponse(
    404,
    errorBody(
      `${what} is not enabled: start the gateway with \`switchyard serve ${flag}\` or set ${setting}: true in the config`,
      'invalid_request_error',
      'not_found',
    ),
  );

/**
 * `GET /metrics` (Prometheus text) and the status page; each one off answers 404 naming its
 * `serve` flag and config setting. With caller authentication on, `/metrics`
 * and `/v1/status` need an operator key, like `/v1/breakers`; the page itself holds no data.
 */
export function addObserveRoutes(
  app: Hono<HttpEnv>,
  observe: ObserveRoutes,
  deps: {
    gateway: Gateway;
    catalog: Catalog;
    log: Logger;
    callerKeys?: CallerKeyCheck | undefined;
    access: () => AccessPolicy;
  },
): void {
  const { metrics, status } = observe;
  if (!metrics) app.get('/metrics', disabled('/metrics', '--metrics', 'metrics.enabled'));
  if (!status) {
    const off = disabled('the status page', '--status', 'statusPage.enabled');
    app.get('/status', off);
    app.get('/v1/status', off);
  }
  if (metrics) {
    if (deps.callerKeys) {
      app.use('/metrics', callerAuth(deps.callerKeys, { log: deps.log }), operatorOnly(deps.access));
    }
    app.get('/metrics', async () => {
      try {
        const views = (await deps.gateway.breakers()) ?? [];
        const breakers = views.map((v) => ({
          ...v,
          provider: v.route ?? deps.catalog.models.get(v.model)?.providerName ?? '',
        }));
        return new Response(renderExposition(metrics.families(breakers)), {
          headers: { 'content-type': PROMETHEUS_CONTENT_TYPE, 'cache-control': 'no-store' },
        });
      } catch (error) {
        deps.log.warn('metrics unreadable', { error: error instanceof Error ? error.name : 'unknown' });
        return unavailable('metrics');
      }
    });
  }
  if (status) {
    const page = statusPageHtml(status.refreshMs, status.console === true);
    app.get(
      '/status',
      () =>
        new Response(page, {
          headers: {
            'content-type': 'text/html; charset=utf-8',
            'content-security-policy': statusPageCsp(status.console === true),
            'x-content-type-options': 'nosniff',
            'referrer-policy': 'no-referrer',
            'cache-control': 'no-store',
          },
        }),
    );
    if (deps.callerKeys) app.use('/v1/status', operatorOnly(deps.access));
    app.get('/v1/status', async (c) => {
      try {
        c.header('cache-control', 'no-store');
        return c.json(await status.snapshot());
      } catch (error) {
        deps.log.warn('status unreadable', { error: error instanceof Error ? error.name : 'unknown' });
        return unavailable('status');
      }
    });
  }
}
