import type { Usage } from '../chat/chat-model.js';
import { ProviderError } from './provider-error.js';

/**
 * An answer that did not match the requested structured output (`schema_invalid`,
 * docs/design.md#the-failure-matrix). The upstream did answer, so the attempt has usage, and the
 * loop may send the repair to the same model.
 */
export class SchemaInvalidError extends ProviderError {
  readonly errors: readonly string[];
  readonly usage: Usage | undefined;
  /** The next attempt repairs on this same model (`repairWith: same`, repairs left). */
  readonly repairSameModel: boolean;

  constructor(fields: {
    provider: string;
    model: string;
    errors: readonly string[];
    usage?: Usage | undefined;
    repairSameModel: boolean;
  }) {
    super({
      provider: fields.provider,
      model: fields.model,
      failureClass: 'schema_invalid',
      message: `the answer does not match the requested JSON format: ${fields.errors.join('; ')}`,
    });
    this.name = 'SchemaInvalidError';
    this.errors = fields.errors;
    this.usage = fields.usage;
    this.repairSameModel = fields.repairSameModel;
  }
}
