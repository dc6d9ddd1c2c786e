/**
 * What the shared HTTP transport (`http-transport.ts`, which raises the `openai` package's
 * connection errors) and the Anthropic SDK throw when a connection fails: their classes, and
 * their default messages for when a minifying bundler has renamed the classes.
 */
import type { FailureSignals } from '../../core/failures/failure-signals.js';

export const HTTP_TRANSPORT_SIGNALS: Partial<FailureSignals> = {
  transportNames: new Map([
    ['APIConnectionTimeoutError', 'timeout'],
    ['APIUserAbortError', 'cancelled'],
    ['APIConnectionError', 'network'],
  ]),
  transportMessages: new Map([
    ['Request timed out.', 'timeout'],
    ['Request was aborted.', 'cancelled'],
    ['Connection error.', 'network'],
  ]),
};
