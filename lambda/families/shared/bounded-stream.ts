/**
 * A response body as SDKs read it (a Node `Readable`), with its bytes counted by a meter on the
 * way: the Anthropic SDK's `fetch` and the Bedrock client's HTTP handler hand this on instead of
 * the socket's own stream.
 */
import { type Readable, Transform } from 'node:stream';
import type { ByteMeter } from './answer-limits.js';

/**
 * Passes `source` through `meter`. Over the bound, `source` is destroyed at once (its connection
 * closes: an HTTP/1.1 socket, an HTTP/2 stream) and the returned stream errors with the meter's
 * `malformed_response`; nothing past the bound is read. Destroying the returned stream (a reader
 * that stops early) destroys `source` too.
 */
export function boundedStream(source: Readable, meter: ByteMeter): Readable {
  const bounded = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      try {
        meter.take(chunk);
      } catch (error) {
        source.destroy();
        return done(error as Error);
      }
      done(null, chunk);
    },
  });
  source.on('error', (error) => bounded.destroy(error));
  // A source closed before its end without an error of its own still fails the read, as Node's
  // `pipeline` reports it.
  source.once('close', () => {
    if (!source.readableEnded && !bounded.destroyed) bounded.destroy(prematureClose());
  });
  bounded.once('close', () => {
    if (!source.readableEnded) source.destroy();
  });
  source.pipe(bounded);
  return bounded;
}

const prematureClose = () =>
  Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' });
