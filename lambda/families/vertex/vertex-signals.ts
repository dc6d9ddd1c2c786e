/**
 * Vertex's failure-matrix rows: its chat and embeddings calls are the OpenAI-compatible adapter's
 * (same codes and transport), and its token endpoint answers over the same kind of HTTP.
 */
import type { FailureSignals } from '../../core/failures/failure-signals.js';
import { OPENAI_COMPATIBLE_SIGNALS } from '../openai-compatible/openai-compatible-signals.js';

export const VERTEX_SIGNALS: FailureSignals = OPENAI_COMPATIBLE_SIGNALS;
