import type { Admission, Refusal, Ticket } from '../core/admission/admission.js';
import { chainReservation } from '../core/admission/chain-reservation.js';
import type { SpendMeter } from '../core/admission/spend-meter.js';
import { storedTicket } from '../core/admission/stored-ticket.js';
import { stateScope } from '../core/catalog/ad-hoc-chains.js';
import type { Catalog } from '../core/catalog/catalog.js';
import type { JobAdmission } from '../core/jobs/job-ports.js';

const REFUSAL_CODES: Record<Refusal['reason'], string> = {
  budget: 'budget_exceeded',
  rate: 'rate_limit_exceeded',
  unavailable: 'admission_unavailable',
};

/**
 * Admission of job runs, reserved and settled like a chat request: the run's ledger lines carry
 * the job id, which the meter follows. An API job's first run takes over what its `POST` reserved
 * under its key's and pipeline's limits (it was counted then, and is not counted twice); any other
 * run (a retry, a scheduled job, a job stored before jobs counted against keys) is admitted here,
 * against its key's limits when it has a key, and its pipeline's.
 */
export function jobRunAdmission(admission: Admission, meter: SpendMeter, catalog: Catalog): JobAdmission {
  const metered = (jobId: string, ticket: Ticket) => {
    if (ticket.holds.length === 0) return { ok: true as const, end: async () => {} };
    // The admission reports its own store failures; a settlement never fails the run.
    let writing: Promise<void> | undefined;
    meter.open(jobId, (use) => {
      writing = admission.settle(ticket, use).catch(() => undefined);
    });
    return {
      ok: true as const,
      end: async () => {
        meter.close(jobId);
        await writing;
      },
    };
  };
  return {
    async admit(run) {
      const held = storedTicket(run.reservation);
      if (held) return metered(run.jobId, held);
      const { request, target } = run;
      const asked = {
        inputChars: JSON.stringify(request.messages).length,
        maxTokens: request.max_completion_tokens ?? request.max_tokens ?? undefined,
      };
      const outcome = await admission.admit({
        keyName: run.keyName,
        // Every ad-hoc chain is limited as the reserved pipeline `adhoc` (admission.pipelines.adhoc).
        pipeline: stateScope(target.pipeline),
        reservation: chainReservation(asked, target.tiers, catalog),
      });
      if (!outcome.ok) {
        const { refusal } = outcome;
        const message = `${refusal.limit.field} has no room`;
        return { ok: false, code: REFUSAL_CODES[refusal.reason], resetAt: refusal.resetAt, message };
      }
      return metered(run.jobId, outcome.ticket);
    },
  };
}
