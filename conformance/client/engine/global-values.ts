/** Sets properties of the global object; the returned function puts back what was there (or removes them). */
export function installGlobals(values: Readonly<Record<string, unknown>>): () => void {
  const global = globalThis as Record<string, unknown>;
  const previous = Object.keys(values).map((name) => [name, Object.getOwnPropertyDescriptor(global, name)] as const);
  for (const [name, value] of Object.entries(values)) {
    Object.defineProperty(global, name, { value, configurable: true, writable: true, enumerable: false });
  }
  return () => {
    for (const [name, descriptor] of previous) {
      if (descriptor === undefined) delete global[name];
      else Object.defineProperty(global, name, descriptor);
    }
  };
}
