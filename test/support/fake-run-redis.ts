/** Stands in for Redis pub/sub between the processes that share it (the part of RunRedis run events use). */
export class FakeRunRedis {
  readonly published: Array<{ channel: string; message: string }> = [];
  private readonly handlers = new Map<string, Set<(message: string) => void>>();

  channel(name: string): string {
    return `test:${name}`;
  }

  publish(channel: string, message: string): void {
    this.published.push({ channel, message });
    for (const handler of this.handlers.get(channel) ?? []) handler(message);
  }

  listen(channel: string, handler: (message: string) => void): Promise<() => void> {
    const handlers = this.handlers.get(channel) ?? new Set();
    this.handlers.set(channel, handlers.add(handler));
    return Promise.resolve(() => handlers.delete(handler));
  }
}
