import { SwitchyardError } from '../core/errors.js';

/**
 * A change to an operator override that is refused before anything is written: a chain that
 * resolves to no model, a bad duration, a canary in the way. The CLI prints it and exits 2; the
 * operator endpoints answer 400 (409 when the override's state is in the way) with its message.
 */
export class OverrideRefusedError extends SwitchyardError {
  /** True when the override's current state is in the way (a running canary, a held pin), not the input. */
  readonly conflict: boolean;
  constructor(message: string, options: { conflict?: boolean } = {}) {
    super(message);
    this.name = 'OverrideRefusedError';
    this.conflict = options.conflict ?? false;
  }
}
