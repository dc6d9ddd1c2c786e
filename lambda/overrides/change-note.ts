/**
 * Who changed an operator override and why, kept in the version's description (SSM keeps a
 * description per version in its parameter history; the local store does the same). SSM's own
 * `LastModifiedUser` names the API's IAM role for every console change, so the operator key's
 * name travels here instead.
 */

/** Who made a change (the operator key's NAME, never the key) and why, in their words. */
export interface ChangeAuthor {
  who: string;
  why: string;
}

/** A version's description read back: what was done, by whom, why. */
export interface ChangeNote extends ChangeAuthor {
  what: string;
}

const MARK = ' (operator console): ';
/** SSM's limit on a parameter description, in characters. */
const MAX_DESCRIPTION = 1024;

/** `set pin llama-or until … by ops (operator console): provider incident`. */
export function writeChangeNote(what: string, author: ChangeAuthor): string {
  const head = `${what} by ${author.who}${MARK}`;
  return `${head}${author.why}`.slice(0, MAX_DESCRIPTION);
}

/** The note of a description the console wrote; undefined for any other (the CLI's, the AWS CLI's). */
export function readChangeNote(description: string | undefined): ChangeNote | undefined {
  if (!description) return undefined;
  const at = description.indexOf(MARK);
  if (at < 0) return undefined;
  const head = description.slice(0, at);
  const by = head.lastIndexOf(' by ');
  if (by < 0) return undefined;
  return { what: head.slice(0, by), who: head.slice(by + 4), why: description.slice(at + MARK.length) };
}
