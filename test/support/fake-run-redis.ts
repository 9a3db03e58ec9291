import type { TestingModule } from '@nestjs/testing';
import { getRepositoryToken } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import type { AppConfig } from '../../src/config/app-config';
import { APP_CONFIG } from '../../src/config/config.module';
import { RunEventEntity } from '../../src/runs/run-event.entity';
import { RunEventsService } from '../../src/runs/run-events.service';
import type { RunRedis } from '../../src/runs/run-redis';

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

/**
 * The run events of two processes in queue mode over `moduleRef`'s database and one fake Redis: the `worker` that
 * executes a run and an `api` process that only serves its events. Made by hand, so the testing module does not
 * shut them down: call their onApplicationShutdown after the test.
 */
export function queueModeEventLogs(moduleRef: TestingModule): {
  redis: FakeRunRedis;
  worker: RunEventsService;
  api: RunEventsService;
} {
  const redis = new FakeRunRedis();
  const repository = moduleRef.get<Repository<RunEventEntity>>(getRepositoryToken(RunEventEntity));
  const config = moduleRef.get<AppConfig>(APP_CONFIG);
  const service = () => new RunEventsService(repository, config, redis as unknown as RunRedis);
  return { redis, worker: service(), api: service() };
}
