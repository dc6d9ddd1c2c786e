/**
 * The SQS error code of `error`, without the `AWS.SimpleQueueService.` prefix that the JSON
 * protocol's query-compatibility header adds to some names (`QueueNameExists` arrives as
 * `AWS.SimpleQueueService.QueueNameExists`). Undefined for anything that is not an error.
 * Matched by name, not `instanceof`: a second copy of the SDK in a bundle has its own classes.
 */
export function sqsErrorCode(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  return error.name.replace(/^AWS\.SimpleQueueService\./, '');
}

/**
 * Codes with which an endpoint says it does not have an operation at all: SQS itself
 * (`UnsupportedOperation`, `UnknownOperationException`), fauxqs 1.9.2 (`InvalidAction`, HTTP 400,
 * "Unknown action: StartMessageMoveTask") and emulators that answer "not implemented".
 */
const UNSUPPORTED = new Set([
  'UnsupportedOperation',
  'UnknownOperationException',
  'InvalidAction',
  'NotImplemented',
]);

/** True when `error` says the endpoint lacks the operation (as opposed to refusing this call). */
export function isUnsupportedOperation(error: unknown): boolean {
  const code = sqsErrorCode(error);
  if (code !== undefined && UNSUPPORTED.has(code)) return true;
  const status = (error as { $metadata?: { httpStatusCode?: number } } | undefined)?.$metadata
    ?.httpStatusCode;
  return status === 501;
}
