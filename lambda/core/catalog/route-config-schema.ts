/**
 * The config of routes and substitution limits (docs/configuration.md#routes-and-substitution):
 * a model's other routes, and how far a pipeline may degrade. Kept apart from config-schema.ts so
 * each concern reads on its own.
 */
import * as z from 'zod';
import { lazySchema, once } from '../lazy-schema.js';
import { chainName, name, positiveInt } from './config-fields.js';
import { priceSchema } from './price-schema.js';
import { timeoutsField } from './timeouts-config-schema.js';

/**
 * Another route to the same model: the same model id through another provider or account. A
 * route's unset fields are the model's own: `model` the model's raw id, `timeoutMs` and
 * `timeouts` its time limits (a route's `timeoutMs` sets all of its limits at once), `price` its price. The route is named after its provider, which must therefore use the
 * chain's name characters (the route shows as `<model>~<provider>` in trails and breakers).
 */
export const modelRouteSchema = lazySchema(() =>
  z.strictObject({
    /** Name of an entry of `providers`; also the route's name. */
    provider: chainName,
    /** The provider's raw model id for this route. Default: the model's `model`. */
    model: name.optional(),
    /** Upper bound of one attempt on this route in ms. Default: the model's `timeoutMs`. */
    timeoutMs: positiveInt.optional(),
    /** Layered time limits on this route (docs/configuration.md#timeouts). Default: the model's. */
    ...timeoutsField(),
    /** Price on this route. Default: the model's `price`. */
    price: priceSchema.optional(),
  }),
);

/** The routes field of a model: routes tried after the model's own provider, in order. */
export const modelRoutesField = once(() => ({
  /** Other routes to the same model, tried in order after its own `provider`. Default none. */
  routes: z.array(modelRouteSchema).default([]),
}));

/**
 * How far a pipeline may degrade (docs/design.md#the-attempt-loop). `substitution: "forbid"`:
 * only routes of the first tier's models may answer. `maxTier`: no model past tier N answers.
 */
export const substitutionLimitsSchema = lazySchema(() =>
  z.strictObject({
    /** `allow`: any tier of the chain may answer; `forbid`: only the first tier's models. Default `allow`. */
    substitution: z.enum(['allow', 'forbid']).default('allow'),
    /** Highest tier (1-based) that may answer. Default: none (every tier). */
    maxTier: positiveInt.optional(),
  }),
);

export type ModelRouteConfig = z.infer<typeof modelRouteSchema>;
export type SubstitutionLimits = z.infer<typeof substitutionLimitsSchema>;

/** The limits of a request that names no pipeline (an ad-hoc chain): the schema's defaults. */
export const DEFAULT_SUBSTITUTION_LIMITS: Readonly<SubstitutionLimits> = Object.freeze(
  substitutionLimitsSchema.parse({}),
);
