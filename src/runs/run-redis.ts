import { Logger, type OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';

export const RUN_REDIS = Symbol('RUN_REDIS');

type Handler = (message: string) => void;

/**
 * The Redis of queue mode: a connection for commands and publishing, one for subscriptions (shared by
 * every listener of this process, a channel subscribed while anyone listens), and the prefix of every
 * key and channel so that deployments (and tests) can share one server.
 */
export class RunRedis implements OnApplicationShutdown {
  private readonly logger = new Logger(RunRedis.name);
  readonly commands: Redis;
  private readonly subscriber: Redis;
  private readonly handlers = new Map<string, Set<Handler>>();
  /** The SUBSCRIBE of each channel someone listens to, until Redis confirms it. */
  private readonly subscriptions = new Map<string, Promise<unknown>>();
  private readonly extra: Redis[] = [];
  private readonly resubscribed = new Set<() => void>();
  private subscriberReady = false;

  constructor(
    private readonly url: string,
    readonly prefix: string,
  ) {
    this.commands = this.open();
    this.subscriber = this.open();
    this.subscriber.on('message', (channel: string, message: string) => {
      for (const handler of this.handlers.get(channel) ?? []) handler(message);
    });
    // ioredis subscribes again on each reconnection; messages published while it was away are lost.
    this.subscriber.on('ready', () => {
      if (this.subscriberReady) for (const handler of this.resubscribed) handler();
      this.subscriberReady = true;
    });
  }

  /**
   * Calls `handler` each time the subscription connection is back after it was lost (its channels subscribed
   * again): a message published meanwhile may not have been heard. Until the returned function is called.
   */
  onResubscribed(handler: () => void): () => void {
    this.resubscribed.add(handler);
    return () => this.resubscribed.delete(handler);
  }

  /** A new connection (BullMQ's queue and worker each need their own); closed with this one. */
  connect(): Redis {
    const connection = this.open();
    this.extra.push(connection);
    return connection;
  }

  private open(): Redis {
    const connection = new Redis(this.url, { maxRetriesPerRequest: null });
    connection.on('error', (error: Error) => this.logger.warn({ err: error }, 'Redis connection problem'));
    return connection;
  }

  channel(name: string): string {
    return `${this.prefix}:${name}`;
  }

  /** Publishes without waiting; a lost message is covered by the database (events replay, cancel status). */
  publish(channel: string, message: string): void {
    this.commands
      .publish(channel, message)
      .catch((error: unknown) => this.logger.warn({ err: error, channel }, 'could not publish to Redis'));
  }

  /**
   * Listens to `channel` until the returned function is called; resolves once Redis confirmed the subscription,
   * also for a listener that joins while an earlier one's SUBSCRIBE is still on its way.
   */
  async listen(channel: string, handler: Handler): Promise<() => void> {
    let handlers = this.handlers.get(channel);
    if (!handlers) {
      handlers = new Set();
      this.handlers.set(channel, handlers);
    }
    handlers.add(handler);
    const stop = () => {
      const current = this.handlers.get(channel);
      if (!current?.delete(handler) || current.size > 0) return;
      this.handlers.delete(channel);
      this.subscriptions.delete(channel);
      this.subscriber.unsubscribe(channel).catch(() => undefined);
    };
    let confirmed = this.subscriptions.get(channel);
    if (!confirmed) {
      confirmed = this.subscriber.subscribe(channel);
      this.subscriptions.set(channel, confirmed);
    }
    try {
      await confirmed;
    } catch (error) {
      if (this.subscriptions.get(channel) === confirmed) this.subscriptions.delete(channel);
      stop();
      throw error;
    }
    return stop;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.close();
  }

  async close(): Promise<void> {
    const connections = [this.commands, this.subscriber, ...this.extra];
    await Promise.all(connections.map((connection) => connection.quit().catch(() => connection.disconnect())));
  }
}
