/** Time as the conformance suites see it: injected, so tests can drive it and the runner binds the real one at its edge. */
export interface Clock {
  now(): number;
  setTimeout(callback: () => void, delayMs: number): unknown;
  clearTimeout(handle: unknown): void;
}
