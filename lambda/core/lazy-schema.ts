/**
 * A schema built on first use instead of at import. zod builds a schema's internals when it is
 * constructed; a Lambda's cold start constructed every config and request schema it holds
 * (about 40 ms of module init in bench/cold-start:profile) although a start that trusts its
 * config validated at synth needs none of the config's. `lazySchema(() => z.strictObject(…))`
 * stands for the schema: the first property read (`.parse`, `.extend`, `_zod`…) builds it once,
 * and every read after goes to the built schema, so it parses, composes and reports errors
 * exactly as the schema does; its type is the schema's (`z.infer<typeof x>` works).
 *
 * Keep the factory free of side effects, and compose a lazy schema only inside another factory
 * (calling `.optional()` on it at top level builds it at import again).
 */
export function lazySchema<S extends object>(build: () => S): S {
  let built: S | undefined;
  const schema = (): S => {
    built ??= build();
    return built;
  };
  return new Proxy({} as S, {
    get: (_, key) => Reflect.get(schema(), key),
    has: (_, key) => Reflect.has(schema(), key),
    set: (_, key, value) => Reflect.set(schema(), key, value),
    ownKeys: () => Reflect.ownKeys(schema()),
    // A proxy may not report a property as non-configurable unless its own target has it.
    getOwnPropertyDescriptor: (_, key) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(schema(), key);
      return descriptor && { ...descriptor, configurable: true };
    },
    getPrototypeOf: () => Reflect.getPrototypeOf(schema()),
  });
}

/** A value built on first use and kept: `once(() => …)()` builds at the first call only. */
export function once<T>(build: () => T): () => T {
  let built: { value: T } | undefined;
  return () => {
    built ??= { value: build() };
    return built.value;
  };
}
