/**
 * The `cors` section: which browser origins may call the gateway (docs/configuration.md#cors).
 * Applied by the HTTP app, so `switchyard serve` and the API Lambda answer the same.
 */
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';

/** `https://app.example.com` or `http://localhost:5173`: a scheme, a host, an optional port, nothing else. */
const origin = lazySchema(() =>
  z.string().refine(
    (value) => {
      try {
        const url = new URL(value);
        return (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === value;
      } catch {
        return false;
      }
    },
    {
      message:
        'must be an origin such as https://app.example.com (scheme and host, no path, no trailing /), or *',
    },
  ),
);

export const corsSchema = lazySchema(() =>
  z.strictObject({
    /**
     * Origins whose browser pages may call the gateway, or `["*"]` for any origin. Default none:
     * no CORS headers and no preflight answers (browsers refuse cross-origin calls, as today).
     */
    allowOrigins: z
      .array(z.union([z.literal('*'), origin]))
      .default([])
      .refine((origins) => !origins.includes('*') || origins.length === 1, {
        message: '* allows every origin: give it alone, or list origins without it',
      }),
    /**
     * Request headers a browser may send. Default: whatever the preflight asks for (browser OpenAI
     * clients add their own `x-stainless-*` headers besides `authorization` and `content-type`).
     */
    allowHeaders: z.array(z.string().regex(/^[A-Za-z0-9-]+$/, 'must be a header name')).optional(),
    /** How long a browser may cache a preflight answer, in s (0–86400). Default 600. */
    maxAgeSeconds: z.number().int().min(0).max(86_400).default(600),
  }),
);

export type CorsConfig = z.infer<typeof corsSchema>;
