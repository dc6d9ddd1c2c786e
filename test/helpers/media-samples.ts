/** Small media the content-part tests send: valid base64 of the types every family that takes the part accepts. */

/** A 1×1 PNG, base64. */
export const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

/** The start of a PDF, base64 (the gateway checks the encoding and media type, not the document). */
export const PDF = 'JVBERi0xLjQKJcOkw7zDtsOfCjIgMCBvYmoKPDwvTGVuZ3RoIDMgMCBSPj4Kc3RyZWFtCg==';
