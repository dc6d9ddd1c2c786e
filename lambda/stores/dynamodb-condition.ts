/**
 * True when a DynamoDB write was refused by its condition (`ConditionalCheckFailedException`): the
 * expected outcome of a lost race, never an error to report. Tested by name, not `instanceof`: a
 * second copy of the SDK in a bundle would have its own class.
 */
export function isConditionFailure(error: unknown): boolean {
  return error instanceof Error && error.name === 'ConditionalCheckFailedException';
}
