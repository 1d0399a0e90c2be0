type Listener = ((event: { readonly type: string }) => void) | { handleEvent(event: { readonly type: string }): void };

const VISIBILITY_CHANGE = 'visibilitychange';

/**
 * The little of a browser's `document` a client reads for page visibility
 * (document.visibilityState, document.hidden, the visibilitychange event),
 * for the public-API path, where the engine cannot hand the client a
 * visibility source and installs this as the global `document` instead.
 */
export class PageDocument {
  #visible: boolean;
  readonly #listeners = new Set<Listener>();

  constructor(visible: boolean) {
    this.#visible = visible;
  }

  get visibilityState(): 'visible' | 'hidden' {
    return this.#visible ? 'visible' : 'hidden';
  }

  get hidden(): boolean {
    return !this.#visible;
  }

  addEventListener(type: string, listener: Listener | null, options?: boolean | { readonly signal?: AbortSignal }): void {
    if (type !== VISIBILITY_CHANGE || listener === null) return;
    const signal = typeof options === 'object' ? options.signal : undefined;
    if (signal?.aborted) return;
    this.#listeners.add(listener);
    signal?.addEventListener('abort', () => this.#listeners.delete(listener), { once: true });
  }

  removeEventListener(type: string, listener: Listener | null): void {
    if (type === VISIBILITY_CHANGE && listener !== null) this.#listeners.delete(listener);
  }

  /** Shows or hides the page, firing visibilitychange when that changes it. */
  setVisible(visible: boolean): void {
    if (visible === this.#visible) return;
    this.#visible = visible;
    const event = { type: VISIBILITY_CHANGE };
    for (const listener of [...this.#listeners]) {
      if (typeof listener === 'function') listener(event);
      else listener.handleEvent(event);
    }
  }
}
