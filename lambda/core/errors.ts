/**
 * The one error base class of Switchyard. Subclasses set `name` and carry the data a caller
 * needs; causes travel through the standard `ErrorOptions`.
 */
export class SwitchyardError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'SwitchyardError';
  }
}

/** A configuration value is missing or has the wrong shape. `path` names the field, e.g. `models.a.provider`. */
export class ConfigError extends SwitchyardError {
  readonly path: string;
  constructor(path: string, message: string, options?: ErrorOptions) {
    super(path ? `${path}: ${message}` : message, options);
    this.name = 'ConfigError';
    this.path = path;
  }
}
