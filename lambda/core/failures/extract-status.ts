/**
 * Finding the upstream HTTP status in whatever a provider SDK threw (docs/design.md#the-failure-matrix).
 *
 * SDKs disagree on where the status lives (`openai` uses `status`, the AWS SDK
 * `$metadata.httpStatusCode`, fetch wrappers `response.status`) and wrappers bury the SDK error in
 * `cause` or `AggregateError.errors`, so the search is structural and recursive. Nothing here may
 * throw: classification runs inside error handling, where a second exception would hide the first.
 */

/** How deep `cause` / `errors[]` nesting is followed. Real chains are 2–4 levels deep. */
const MAX_DEPTH = 8;
/** Upper bound on visited errors, so a huge `AggregateError` cannot make classification slow. */
const MAX_NODES = 64;

/** One error object met while walking an error chain, with its nesting depth (0 = the error itself). */
export interface ErrorNode {
  readonly value: object;
  readonly depth: number;
}

/**
 * Reads one property without ever throwing. Errors may come from proxies or carry throwing
 * getters, and classification must survive them.
 *
 * @returns the property value, or `undefined` when `value` is not an object or the read throws.
 */
export function readProperty(value: unknown, key: string): unknown {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return undefined;
  try {
    return (value as Record<string, unknown>)[key];
  } catch {
    return undefined;
  }
}

/**
 * The error and every error nested in it through `cause` and `errors[]`, outermost first
 * (depth-first, pre-order). Cycles are visited once; nesting stops at depth 8 and 64 errors in all.
 *
 * @param error anything that was thrown.
 * @returns the object-typed members of the chain; empty when `error` is not an object.
 */
export function errorChain(error: unknown): ErrorNode[] {
  const nodes: ErrorNode[] = [];
  const seen = new Set<object>();
  const visit = (value: unknown, depth: number): void => {
    if (value === null || typeof value !== 'object') return;
    if (seen.has(value) || depth > MAX_DEPTH || nodes.length >= MAX_NODES) return;
    seen.add(value);
    nodes.push({ value, depth });
    visit(readProperty(value, 'cause'), depth + 1);
    const errors = readProperty(value, 'errors');
    if (Array.isArray(errors)) {
      for (const inner of errors) visit(inner, depth + 1);
    }
  };
  visit(error, 0);
  return nodes;
}

/** True for an integer that can be an HTTP response status (100–599). */
function isHttpStatus(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 100 && value <= 599;
}

/** The status carried directly by one error object, in the places the SDKs we use put it. */
function ownStatus(value: object): number | undefined {
  const candidates = [
    readProperty(value, 'status'),
    readProperty(value, 'statusCode'),
    readProperty(readProperty(value, 'response'), 'status'),
    readProperty(readProperty(value, '$metadata'), 'httpStatusCode'),
    readProperty(readProperty(value, '$response'), 'statusCode'),
  ];
  return candidates.find(isHttpStatus);
}

/**
 * The upstream HTTP status of a thrown error: `status`, `statusCode`, `response.status`,
 * `$metadata.httpStatusCode` or `$response.statusCode`, on the error or on any error nested in
 * its `cause` / `errors[]`. The outermost status wins, since it describes the response we got.
 *
 * @param error anything that was thrown.
 * @returns an integer 100–599, or `undefined` when there is none (network errors, timeouts, aborts).
 */
export function extractStatus(error: unknown): number | undefined {
  for (const node of errorChain(error)) {
    const status = ownStatus(node.value);
    if (status !== undefined) return status;
  }
  return undefined;
}
