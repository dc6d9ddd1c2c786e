/**
 * The one way Switchyard links abort signals (the caller's, an attempt deadline's, a stream's
 * release): the result aborts as soon as any source does, with that source's reason, so whoever
 * reads `reason` learns who aborted. Absent sources are skipped; with none, the signal never aborts.
 *
 * `AbortSignal.any` holds its sources weakly, so nothing has to be released when an attempt ends.
 */
export function linkSignals(...sources: (AbortSignal | undefined)[]): AbortSignal {
  return AbortSignal.any(sources.filter((s): s is AbortSignal => s !== undefined));
}
