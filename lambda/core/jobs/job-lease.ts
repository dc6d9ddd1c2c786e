import type { Catalog } from '../catalog/catalog.js';

/** Upper bound of one webhook delivery, in ms. */
export const DELIVERY_TIMEOUT_MS = 10_000;

/**
 * How long a claim holds a job: the longest pipeline deadline plus a delivery, and never less than
 * 30 s. A message that reappears while its job still runs then finds it busy instead of running it twice.
 */
export function jobLeaseMs(catalog: Catalog): number {
  const deadlines = [
    catalog.policy('').route.deadlineMs,
    ...catalog.pipelines.map((p) => catalog.policy(p).route.deadlineMs),
  ];
  return Math.max(30_000, Math.max(...deadlines) + DELIVERY_TIMEOUT_MS + 5_000);
}
