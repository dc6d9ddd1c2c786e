import type { LogFields, Logger } from '../../lambda/core/logger.js';

/** One line a `recordingLog` kept. */
export interface LoggedLine {
  message: string;
  fields: LogFields | undefined;
}

/** A logger that keeps the lines of the given levels, oldest first, and drops the others. */
export function recordingLog(...levels: (keyof Logger)[]): { log: Logger; lines: LoggedLine[] } {
  const lines: LoggedLine[] = [];
  const level = (name: keyof Logger) =>
    levels.includes(name)
      ? (message: string, fields?: LogFields) => void lines.push({ message, fields })
      : () => {};
  return {
    log: { debug: level('debug'), info: level('info'), warn: level('warn'), error: level('error') },
    lines,
  };
}
