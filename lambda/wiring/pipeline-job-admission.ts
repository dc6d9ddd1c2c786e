import type { Admission } from '../core/admission/admission.js';
import { chainReservation } from '../core/admission/chain-reservation.js';
import type { SpendMeter } from '../core/admission/spend-meter.js';
import { stateScope } from '../core/catalog/ad-hoc-chains.js';
import type { Catalog } from '../core/catalog/catalog.js';
import type { JobAdmission } from '../core/jobs/job-ports.js';

/**
 * Jobs count against their pipeline's limits (not a key's: a scheduled job has no caller key),
 * reserved and settled like a chat request: the run's ledger lines carry the job id, which the
 * meter follows.
 */
export function pipelineJobAdmission(
  admission: Admission,
  meter: SpendMeter,
  catalog: Catalog,
): JobAdmission {
  return {
    async admit(jobId, target, request) {
      const asked = {
        inputChars: JSON.stringify(request.messages).length,
        maxTokens: request.max_completion_tokens ?? request.max_tokens ?? undefined,
      };
      const outcome = await admission.admit({
        keyName: undefined,
        // Every ad-hoc chain is limited as the reserved pipeline `adhoc` (admission.pipelines.adhoc).
        pipeline: stateScope(target.pipeline),
        reservation: chainReservation(asked, target.tiers, catalog),
      });
      if (!outcome.ok) {
        const { refusal } = outcome;
        const code =
          refusal.reason === 'budget'
            ? 'budget_exceeded'
            : refusal.reason === 'rate'
              ? 'rate_limit_exceeded'
              : 'admission_unavailable';
        return { ok: false, code, resetAt: refusal.resetAt, message: `${refusal.limit.field} has no room` };
      }
      const { ticket } = outcome;
      if (ticket.holds.length === 0) return { ok: true, end() {} };
      meter.open(jobId, (use) => void admission.settle(ticket, use));
      return { ok: true, end: () => meter.close(jobId) };
    },
  };
}
