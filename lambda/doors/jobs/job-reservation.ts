/**
 * Admission of `POST /v1/jobs` (docs/jobs.md#admission): an API job is its caller key's request,
 * reserved under the key's and the pipeline's limits exactly as a chat request is, before it is
 * stored; a refusal is chat's own 429 (or 503 for a fail-closed store), and nothing is stored. The
 * reservation travels with the record to the job's first run, which settles it.
 */
import type { Admission, Refusal, Ticket } from '../../core/admission/admission.js';
import { chainReservation } from '../../core/admission/chain-reservation.js';
import { stateScope } from '../../core/catalog/ad-hoc-chains.js';
import type { Catalog } from '../../core/catalog/catalog.js';
import type { Target } from '../../core/gateway/target.js';
import type { JobQuota } from '../../core/jobs/job-quota.js';
import { chatAsked } from '../../http/admission-gate.js';
import type { ChatCompletionBody } from '../openai-chat/chat-request-schema.js';

/** What admitting a job at `POST` needs. */
export interface JobPostAdmission {
  admission: Admission;
  catalog: Catalog;
  /** The quota of a caller key's unfinished jobs (undefined key: authentication off). */
  quotaOf: (keyName: string | undefined) => Promise<JobQuota | undefined>;
}

/** Nothing used: what a reservation is settled with when its job was never stored. */
const NOTHING = { tokens: 0, costNano: 0 } as const;

/**
 * Reserves a new job under every limit of `keyName` and the target's pipeline. Without admission
 * (`gate` absent) every job is admitted and nothing is reserved.
 */
export async function reserveJob(
  gate: JobPostAdmission | undefined,
  keyName: string | undefined,
  target: Target,
  body: ChatCompletionBody,
): Promise<{ ok: true; ticket: Ticket | undefined } | { ok: false; refusal: Refusal }> {
  if (!gate) return { ok: true, ticket: undefined };
  const outcome = await gate.admission.admit({
    keyName,
    // Every ad-hoc chain is limited as the reserved pipeline `adhoc` (admission.pipelines.adhoc).
    pipeline: stateScope(target.pipeline),
    reservation: chainReservation(chatAsked(body), target.tiers, gate.catalog),
  });
  return outcome.ok ? { ok: true, ticket: outcome.ticket } : outcome;
}

/**
 * Gives back the tokens and spend of a job that was not stored after all (a replay, a conflict, a
 * full store, a quota); its request stays counted, as a refused chat request's does.
 */
export async function releaseJob(
  gate: JobPostAdmission | undefined,
  ticket: Ticket | undefined,
): Promise<void> {
  if (gate && ticket && ticket.holds.length > 0) await gate.admission.settle(ticket, NOTHING);
}
