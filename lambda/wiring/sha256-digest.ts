import { createHash } from 'node:crypto';
import type { Digest } from '../core/last-resort/answer-key.js';

/** SHA-256 hex: the digest of last-resort cache keys. */
export const sha256Digest: Digest = (text) => createHash('sha256').update(text).digest('hex');
