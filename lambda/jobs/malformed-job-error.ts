import { SwitchyardError } from '../core/errors.js';

/**
 * A stored job (a DynamoDB item, a SQLite row) that lacks what the transitions rely on: written by
 * hand or by another version. Names the job and the first problem found.
 */
export class MalformedJobError extends SwitchyardError {
  constructor(
    readonly jobId: string,
    readonly issue: string,
    /** What held it: `item` (DynamoDB) or `row` (SQLite), as the message says. */
    readonly holder: 'item' | 'row',
  ) {
    super(`job ${holder} '${jobId}' is malformed: ${issue}`);
    this.name = 'MalformedJobError';
  }
}
