import type { LogFields, Logger } from '../logger.js';

/**
 * Passes each distinct warning or error on once (by message and fields), so a broken override
 * read on every request is reported when it appears, not thousands of times. Bounded: after
 * `limit` distinct lines the memory starts over.
 */
export function onceLogger(log: Logger, limit = 1_000): Logger {
  const seen = new Set<string>();
  const once =
    (write: (message: string, fields?: LogFields) => void) => (message: string, fields?: LogFields) => {
      const key = `${message}\u0000${JSON.stringify(fields ?? {})}`;
      if (seen.has(key)) return;
      if (seen.size >= limit) seen.clear();
      seen.add(key);
      write(message, fields);
    };
  return {
    debug: (message, fields) => log.debug(message, fields),
    info: (message, fields) => log.info(message, fields),
    warn: once((m, f) => log.warn(m, f)),
    error: once((m, f) => log.error(m, f)),
  };
}
