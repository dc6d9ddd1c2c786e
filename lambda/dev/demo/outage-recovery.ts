/**
 * How fast the demo's callers were back on a provider after its outage (issue 28 item 2): the
 * time from the outage's end to the first request sent after it that the provider answered, and
 * the probes that went into the outage (docs/concepts.md#the-probe-schedule). Probes carry
 * callers' requests, so a probe's answer counts as traffic back on the provider.
 */
import type { LedgerEntry } from '../../core/ledger/ledger-entry.js';
import type { DemoScenario } from './demo-scenario.js';
import type { CallRecord } from './load-driver.js';

/** One provider's outage and the way back from it. */
export interface OutageRecovery {
  modelKey: string;
  /** The outage, ms after the run started. */
  startMs: number;
  endMs: number;
  /**
   * Ms from the outage's end to the send time of the first request the provider answered after it;
   * undefined when none did before the run ended.
   */
  backAfterMs: number | undefined;
  /** Probe attempts on the provider that got the outage's status (ledger `recovery: "probe"`). */
  probesIntoOutage: number;
  /** Every attempt on the provider that got the outage's status. */
  callsIntoOutage: number;
  /**
   * Real ms per minute of breaker time: the demo scales the breakers' 15 minutes to `openMs`, so
   * `backAfterMs / breakerMsPerMinute` is the time back in minutes on the breakers' scale.
   */
  breakerMsPerMinute: number;
}

/** The outage of every provider that has one, measured from the callers' records and the ledger. */
export function outageRecoveries(
  scenario: DemoScenario,
  records: readonly CallRecord[],
  ledger: readonly LedgerEntry[],
): OutageRecovery[] {
  const breakerMsPerMinute = scenario.breaker.openMs / 15;
  return scenario.providers.flatMap((p) => {
    const outage = p.outage;
    if (!outage) return [];
    const back = records
      .filter((r) => r.model === p.modelKey && r.status === 200 && r.sentMs >= outage.endMs)
      .reduce((first, r) => Math.min(first, r.sentMs), Number.POSITIVE_INFINITY);
    // The simulated upstream answers its outage status only during the outage.
    const into = ledger.filter(
      (e) => e.type === 'attempt' && e.model === p.modelKey && e.status === outage.status,
    );
    return [
      {
        modelKey: p.modelKey,
        startMs: outage.startMs,
        endMs: outage.endMs,
        backAfterMs: Number.isFinite(back) ? back - outage.endMs : undefined,
        probesIntoOutage: into.filter((e) => e.type === 'attempt' && e.recovery === 'probe').length,
        callsIntoOutage: into.length,
        breakerMsPerMinute,
      },
    ];
  });
}

/** `gemini-flash 503 36.0–40.0 s: back 0.2 s after its end (1.4 breaker-min); 5 probes, 9 calls into it`. */
export function describeOutage(o: OutageRecovery): string {
  const s = (ms: number) => (ms / 1000).toFixed(1);
  const minutes = (ms: number) => (ms / o.breakerMsPerMinute).toFixed(1);
  const back =
    o.backAfterMs === undefined
      ? 'not answering again before the run ended'
      : `back ${s(o.backAfterMs)} s after its end (${minutes(o.backAfterMs)} min on the breakers' scale)`;
  return (
    `${o.modelKey} outage ${s(o.startMs)}–${s(o.endMs)} s (${minutes(o.endMs - o.startMs)} breaker-min): ${back}; ` +
    `${o.probesIntoOutage} probes, ${o.callsIntoOutage} calls into it`
  );
}
