import type { Hono } from 'hono';
import * as z from 'zod';
import type { Admission } from '../core/admission/admission.js';
import type { Logger } from '../core/logger.js';
import type { HttpEnv } from './http-env.js';
import { errorBody, errorResponse } from './openai-errors.js';

/** A UTC day, `2026-12-01`, that is a real date. */
export const usageDaySchema = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a UTC day such as 2026-12-01')
  .refine(
    (d) =>
      !Number.isNaN(Date.parse(`${d}T00:00:00Z`)) && new Date(`${d}T00:00:00Z`).toISOString().startsWith(d),
    'is not a date',
  );

/**
 * `GET /v1/usage[?day=YYYY-MM-DD]`: the calling key's own limits and what they hold — spend of the
 * day (default today), requests and tokens of the sliding minute. Never another key's or a
 * pipeline's. Without caller authentication there is no calling key and the list is empty. A store
 * that cannot be read is a 503, not a made-up zero.
 */
export function addUsageRoute(app: Hono<HttpEnv>, admission: Admission, log: Logger): void {
  app.get('/v1/usage', async (c) => {
    const day = c.req.query('day');
    const parsed = day === undefined ? undefined : usageDaySchema.safeParse(day);
    if (parsed && !parsed.success) {
      const message = `day: ${parsed.error.issues[0]?.message ?? 'invalid'}`;
      return errorResponse(400, errorBody(message, 'invalid_request_error', 'invalid_value', 'day'));
    }
    const key = c.get('callerKeyName');
    try {
      const data = key === undefined ? [] : await admission.usage(key, undefined, parsed?.data);
      return c.json({ object: 'usage', key: key ?? null, data });
    } catch (error) {
      log.warn('admission usage unreadable', { error: error instanceof Error ? error.name : 'unknown' });
      return errorResponse(
        503,
        errorBody('usage cannot be read right now', 'api_error', 'admission_unavailable'),
        {
          'retry-after': '1',
        },
      );
    }
  });
}
