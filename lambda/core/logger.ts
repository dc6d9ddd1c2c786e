/** Structured fields of a log line. Never prompt text, output text or secrets. */
export type LogFields = Record<string, unknown>;

/** The logger the core writes to: JSON lines locally, the Powertools logger in Lambda. */
export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

/** A logger that drops everything (tests that do not look at logs). */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
