/**
 * The part of the Lambda Managed Instances Node.js runtime that concurrent invocations in one
 * module instance depend on: `AWS_LAMBDA_MAX_CONCURRENCY` in the environment and an `InvokeStore`
 * backed by `AsyncLocalStorage` on the `awslambda` global, each invocation run inside its own
 * store context holding its request id (as the runtime interface client does). Powertools reads
 * both to scope its per-invocation state (the Logger's Lambda context) to the invocation.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Context } from 'aws-lambda';

type Store = Record<string | symbol, unknown>;

/** The runtime's key for the request id in an invocation's store (`InvokeStoreBase.PROTECTED_KEYS`). */
const REQUEST_ID = Symbol.for('_AWS_LAMBDA_REQUEST_ID');

/** Runs `fn` as the runtime runs one invocation of a multi-concurrent environment. */
export type InvocationScope = <T>(context: Context, fn: () => Promise<T>) => Promise<T>;

/**
 * Installs the multi-concurrent `InvokeStore` on `globalThis.awslambda` (install the streaming
 * runtime first) and returns the scope each invocation runs in.
 */
export function installInvokeStore(): InvocationScope {
  const als = new AsyncLocalStorage<Store>();
  const store = {
    getContext: () => als.getStore(),
    hasContext: () => als.getStore() !== undefined,
    get: (key: string | symbol) => als.getStore()?.[key],
    set(key: string | symbol, value: unknown) {
      const current = als.getStore();
      if (!current) throw new Error('No context available');
      current[key] = value;
    },
    run: <T>(context: Store, fn: () => T) => als.run(context, fn),
    getRequestId: () => String(als.getStore()?.[REQUEST_ID] ?? '-'),
    getXRayTraceId: () => undefined,
    getTenantId: () => undefined,
  };
  const global = globalThis as { awslambda?: Record<string, unknown> };
  if (!global.awslambda) throw new Error('install the streaming runtime before the InvokeStore');
  global.awslambda.InvokeStore = store;
  return (context, fn) => store.run({ [REQUEST_ID]: context.awsRequestId }, fn);
}
