/**
 * The recovery scenario over outages of 50 to 70 s (one run per second of length): where the
 * probe slots fall against the recovery depends on when the breakers opened, so one 60 s run
 * shows one phase of the schedule; the sweep shows the median and the worst case of each `ramp`
 * variant, with one pipeline and with five.
 */
import {
  alignTable,
  RECOVERY_VARIANTS,
  type RecoveryOutcome,
  seconds,
  simulateRecovery,
  type Variant,
} from './recovery-scenario.js';

const LENGTHS_S = Array.from({ length: 21 }, (_, i) => 50 + i);

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

/** The sweep's table lines, for the variants that probe. */
export async function runRecoverySweep(
  seed: number,
  variants: readonly Variant[] = RECOVERY_VARIANTS,
): Promise<string[]> {
  const rows: string[][] = [];
  for (const pipelines of [1, 5]) {
    for (const variant of variants.filter((v) => v.policy.recovery === 'ramp')) {
      const runs: RecoveryOutcome[] = [];
      for (const s of LENGTHS_S) runs.push(await simulateRecovery(variant, pipelines, seed, s * 1000));
      const first = runs.map((r) => r.firstMs ?? Number.POSITIVE_INFINITY);
      const probes = runs.map((r) => r.probesIntoOutage);
      const worst = Math.max(...first);
      rows.push([
        variant.name,
        String(pipelines),
        seconds(median(first)),
        seconds(Number.isFinite(worst) ? worst : undefined),
        String(median(probes)),
        String(Math.max(...probes)),
        String(runs.reduce((n, r) => n + r.failed, 0)),
      ]);
    }
  }
  return [
    `over outages of ${LENGTHS_S[0]}–${LENGTHS_S[LENGTHS_S.length - 1]} s (${LENGTHS_S.length} runs per row, one per second of length):`,
    ...alignTable([
      [
        'recovery',
        'pipelines',
        'primary again, median',
        'primary again, worst',
        'probes into outage, median',
        'probes into outage, worst',
        'failed requests',
      ],
      ...rows,
    ]),
  ];
}
