/**
 * Messages to one thread, sent together: everything queued during one turn of
 * the event loop goes in a single postMessage at its end (fewer wake-ups when
 * many rooms are busy; a lone message is sent as soon as the turn ends).
 */
export class Outbox<M> {
  private queued: M[] = [];

  constructor(private readonly post: (messages: M[]) => void) {}

  send(message: M): void {
    this.queued.push(message);
    if (this.queued.length === 1) queueMicrotask(() => this.flush());
  }

  private flush(): void {
    const messages = this.queued;
    this.queued = [];
    if (messages.length > 0) this.post(messages);
  }
}
