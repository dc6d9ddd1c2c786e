/**
 * The layers of a CPU profile of the serving path: every sample's self time goes to the layer of
 * the function it was taken in (a native function — `JSON.parse`, a syscall, a property definition
 * — to the layer of the JavaScript function that called it), so that the profile reads as "where
 * a request's time goes" in the terms of the serving path's design: our code by folder, Hono and
 * its Node adapter, Node's http and streams, web `Request`/`Response`, zod, abort signals and
 * timers, the garbage collector, system calls.
 */

/** A call frame as a `.cpuprofile` has it. */
export interface ProfileFrame {
  functionName: string;
  url: string;
}

/**
 * Native functions that are a system call (socket and file writes and reads). V8 samples by wall
 * time, so a sample in one also holds the time the process waited for a CPU after the kernel woke
 * a peer (preemption): on a busy machine this row is mostly waiting, not CPU.
 */
const SYSCALLS = new Set([
  'writeUtf8String',
  'writeLatin1String',
  'writev',
  'writeBuffer',
  'writeString',
  'read',
]);

/** The layer of a JavaScript frame, from its file and name. */
function jsLayer(frame: ProfileFrame): string {
  const { url, functionName } = frame;
  // tsx compiles with esbuild's keepNames: `__name(fn, 'name')` runs wherever a closure is made.
  if (functionName === '__name') return 'tsx keepNames (__name on closures)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) {
    const name = pkg[1] as string;
    if (name === 'hono') return 'Hono (router, context, compose)';
    if (name === '@hono/node-server') return '@hono/node-server adapter';
    if (name === 'zod') return 'zod (request body)';
    if (name.startsWith('@opentelemetry')) return 'OpenTelemetry';
    return `other packages (${name})`;
  }
  if (url.startsWith('node:')) {
    if (/^node:internal\/(deps\/undici|webstreams)|^node:internal\/(blob|url)/.test(url))
      return "Node's web Request/Response/streams, URL";
    if (/abort_controller|event_target|^node:timers|^node:internal\/timers|^node:events/.test(url))
      return "Node's AbortController, events, timers";
    if (/_http_|^node:http|^node:net|streams\/|stream_base|string_decoder|^node:stream/.test(url))
      return "Node's http, net and streams";
    if (/task_queues|async_hooks|async_context/.test(url)) return 'microtasks, ticks, async context';
    return 'other Node internals';
  }
  const own = /\/(lambda\/[^/]+(?:\/[^/]+)?)\/[^/]+$/.exec(url);
  if (own) {
    const folder = own[1] as string;
    // The core's folders are many and small: name them, the rest by top folder.
    return folder.startsWith('lambda/core/') || folder.startsWith('lambda/families/')
      ? `our code: ${folder}`
      : `our code: ${folder.split('/').slice(0, 2).join('/')}`;
  }
  if (/\/bench\//.test(url)) return 'bench harness';
  return `other (${url})`;
}

/**
 * The layer a sample belongs to, from its own frame and its caller's (for native frames). Rows
 * named by {@link SYSCALLS} and the garbage collector are their own layers.
 */
export function layerOf(frame: ProfileFrame, caller: ProfileFrame | undefined): string {
  if (frame.url !== '') return jsLayer(frame);
  if (frame.functionName === '(garbage collector)') return 'garbage collector';
  if (frame.functionName === '(program)') return 'V8 (program: compiler, IC misses)';
  if (SYSCALLS.has(frame.functionName)) return 'system calls (+ waiting for a CPU after one)';
  if (frame.functionName === 'runMicrotasks') return 'microtasks, ticks, async context';
  if (caller === undefined || caller.url === '') return 'other native';
  return jsLayer(caller);
}
