/**
 * The `price` of a model or a route: US dollars per million tokens, one price per kind of token
 * (docs/configuration.md#prices). Only input and output are required; each other kind, unset, is
 * billed at the price it is a part of.
 */
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';

const perMTok = lazySchema(() => z.number().nonnegative());

export const priceSchema = lazySchema(() =>
  z.strictObject({
    /** US dollars per million input tokens not read from or written to a prompt cache. */
    inputPerMTok: perMTok,
    /** US dollars per million output tokens. */
    outputPerMTok: perMTok,
    /** US dollars per million input tokens read from the prompt cache. Default: `inputPerMTok`. */
    cachedInputPerMTok: perMTok.optional(),
    /** US dollars per million input tokens written to the prompt cache. Default: `inputPerMTok`. */
    cacheWritePerMTok: perMTok.optional(),
    /** US dollars per million output tokens spent reasoning. Default: `outputPerMTok`. */
    reasoningPerMTok: perMTok.optional(),
  }),
);
