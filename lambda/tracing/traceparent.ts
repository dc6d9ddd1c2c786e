/** A parsed W3C `traceparent` (version 00): the caller's trace and span. */
export interface ParentIds {
  traceId: string;
  spanId: string;
  /** Bit 0: sampled. */
  traceFlags: number;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ALL_ZERO = /^0+$/;

/**
 * The ids of a well-formed `traceparent` header (https://www.w3.org/TR/trace-context/#traceparent-header),
 * else undefined: a malformed header starts a new trace rather than failing the request.
 */
export function parseTraceparent(header: string | undefined): ParentIds | undefined {
  const match = TRACEPARENT.exec(header?.trim().toLowerCase() ?? '');
  if (!match) return undefined;
  const [, version, traceId = '', spanId = '', flags = '', rest] = match;
  // Version ff is invalid; version 00 has nothing after the flags.
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  if (ALL_ZERO.test(traceId) || ALL_ZERO.test(spanId)) return undefined;
  return { traceId, spanId, traceFlags: Number.parseInt(flags, 16) };
}
