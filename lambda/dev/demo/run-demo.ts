/**
 * Runs the demo end to end: simulated providers and the real gateway on loopback, the load of the
 * scenario over real HTTP, the live view, then the summary and `demo-report.html`. Everything it
 * starts it also stops, whatever happens.
 */

import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { LedgerEntry, LedgerSink } from '../../core/ledger/ledger-entry.js';
import { createLocalGateway } from '../../wiring/create-local-gateway.js';
import { seededRandom } from '../../wiring/seeded-random.js';
import { type RunningServer, startServer } from '../../wiring/start-server.js';
import { createBreakerTimeline } from './breaker-timeline.js';
import { buildDemoConfig } from './demo-config.js';
import { renderReport } from './demo-report.js';
import { createDemoScenario, type DemoScenario, phaseAt, phaseIndexAt, tierOf } from './demo-scenario.js';
import { computeStats, type DemoStats, tierCount } from './demo-stats.js';
import { checkLedger, type LedgerCheck } from './ledger-check.js';
import { createLiveView, type LiveMode, recentActivity } from './live-view.js';
import { createLoadDriver } from './load-driver.js';
import { planArrivals, runArrivals } from './load-schedule.js';
import { type SimulatedProvider, startSimulatedProvider } from './simulated-provider.js';
import { formatSummary } from './summary.js';

/** Options of {@link runDemo}. */
export interface DemoOptions {
  /** Length of the load in seconds. Default 60. */
  seconds?: number | undefined;
  /** Where to write the report (absolute, or relative to the process's cwd). */
  reportPath: string;
  /** Where the live view and the summary go. */
  write(text: string): void;
  /** `tty`: redraw in place; `lines`: a plain line every few seconds; `quiet`: summary only. */
  view: LiveMode | 'quiet';
  /** Terminal columns the live view stays within. Default 79. */
  width?: number | undefined;
  /** Also receives every ledger entry (a test compares them with the report). */
  ledgerTap?: LedgerSink | undefined;
  /** Declare each simulated provider's quota to the gateway (`capacity.quotas`). Default true. */
  declareQuotas?: boolean | undefined;
  /** Stops the load early (Ctrl-C); the report is still written, marked as incomplete. */
  signal?: AbortSignal | undefined;
}

/** What a run produced. */
export interface DemoResult {
  /** True when the whole scenario ran and every request got an answer. */
  completed: boolean;
  scenario: DemoScenario;
  stats: DemoStats;
  check: LedgerCheck;
  reportPath: string;
  /** Wall time from start to report, ms. */
  elapsedMs: number;
}

/** Most requests in flight; far above what the scenario needs, so shedding means a slow machine. */
const MAX_IN_FLIGHT = 512;
/** How long the end of the run waits for answers still in flight. */
const DRAIN_MS = 15_000;

function sleepUntil(at: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, Math.max(0, at - Date.now()));
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** Runs the demo and writes the report; resolves when everything it started has stopped. */
export async function runDemo(options: DemoOptions): Promise<DemoResult> {
  const scenario = { ...createDemoScenario(options.seconds), declaredQuotas: options.declareQuotas ?? true };
  const random = seededRandom(scenario.seed);
  const entries: LedgerEntry[] = [];
  const startedAt = Date.now();
  const providers: SimulatedProvider[] = [];
  let server: RunningServer | undefined;
  try {
    for (const spec of scenario.providers) {
      providers.push(await startSimulatedProvider(spec, { minuteMs: scenario.minuteMs, startedAt, random }));
    }
    const config = buildDemoConfig(scenario, new Map(providers.map((p) => [p.spec.provider, p.url])));
    const timeline = createBreakerTimeline(startedAt);
    const local = createLocalGateway({
      config,
      // An empty environment: a MODEL_* override in the user's shell must not change the story.
      env: {},
      log: timeline.log,
      ledger: (entry) => {
        entries.push(entry);
        options.ledgerTap?.(entry);
      },
    });
    server = await startServer(local.app, { port: 0, host: '127.0.0.1' });
    options.write(`status page: ${server.url}/status (live while the demo runs)\n`);
    const driver = createLoadDriver({
      baseUrl: server.url,
      startedAt,
      maxInFlight: MAX_IN_FLIGHT,
      tierOf: (model) => tierOf(scenario, model),
      phaseAt: (t) => phaseIndexAt(scenario, t),
    });
    const durationMs = scenario.seconds * 1000;
    const tiers = tierCount(scenario);
    const view =
      options.view === 'quiet'
        ? undefined
        : createLiveView({
            mode: options.view,
            write: options.write,
            lineEveryMs: Math.max(1_000, Math.round(durationMs / 12)),
            width: options.width,
            snapshot: () => {
              const elapsedMs = Math.min(Date.now() - startedAt, durationMs);
              return {
                elapsedMs,
                durationMs,
                phase: phaseAt(scenario, elapsedMs),
                totals: driver.totals,
                inFlight: driver.inFlight,
                recent: recentActivity(driver, Date.now() - startedAt, tiers),
                open: timeline.openAt(Date.now() - startedAt),
              };
            },
          });

    const loopDelay = monitorEventLoopDelay({ resolution: 20 });
    loopDelay.enable();
    view?.start();
    let drained = false;
    let late = 0;
    try {
      await runArrivals(planArrivals(scenario, random), driver.send, {
        startedAt,
        signal: options.signal,
        onLate: () => {
          late++;
        },
      });
      await sleepUntil(startedAt + durationMs, options.signal);
      drained = await driver.drain(options.signal?.aborted ? 1_000 : DRAIN_MS);
    } finally {
      view?.stop();
      loopDelay.disable();
      driver.close();
    }
    await server.close(1_000);
    server = undefined;
    timeline.close(Date.now() - startedAt);

    const stats = computeStats({
      scenario,
      records: driver.records,
      openings: timeline.intervals,
      providers,
      shed: driver.totals.shed + late,
      loopDelayP99Ms: loopDelay.percentile(99) / 1e6,
      loopDelayMaxMs: loopDelay.max / 1e6,
      ledger: entries,
    });
    const check = checkLedger(stats, entries);
    const completed = drained && !options.signal?.aborted;
    const stoppedAtMs = completed ? undefined : Date.now() - startedAt;
    mkdirSync(dirname(options.reportPath), { recursive: true });
    writeFileSync(
      options.reportPath,
      renderReport({ scenario, stats, check, generatedAt: new Date(), stoppedAtMs }),
    );
    const elapsedMs = Date.now() - startedAt;
    options.write(formatSummary({ scenario, stats, check, elapsedMs, reportPath: options.reportPath }));
    return { completed, scenario, stats, check, reportPath: options.reportPath, elapsedMs };
  } finally {
    await server?.close(1_000);
    await Promise.all(providers.map((p) => p.close()));
  }
}
