import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { AuditService } from '../audit/audit.service';
import { isAdmin, type Principal } from '../common/auth/principal';
import { DomainError } from '../common/errors/domain-error';
import type { Page, PageQuery } from '../common/http/pagination';
import type { AdmitRun, InsertRunWithin, RunAdmission, RunCountLimits } from '../runs/run-admission';
import { windowOf } from './quota-windows';
import { QuotaUsage } from './quota-usage';
import { QuotaEntity } from './quota.entity';
import {
  QUOTA_NAMES,
  type QuotaLimitsDto,
  type QuotaName,
  type QuotaResponse,
  type QuotaStateDto,
  type QuotaWindow,
} from './quota.dto';

const WINDOWS: Record<QuotaName, QuotaWindow> = {
  concurrent_runs: 'concurrent',
  runs_per_day: 'day',
  tokens_per_day: 'day',
  cost_per_day: 'day',
  cost_per_month: 'month',
  code_cpu_seconds_per_day: 'day',
};

/** When a run of a user at its concurrency limit may try again: runs end on their own, so soon. */
const CONCURRENT_RETRY_SECONDS = 5;

/** The quotas a new run's insert checks itself (see admit). */
const RUN_COUNTS: QuotaName[] = ['concurrent_runs', 'runs_per_day'];
/** Admissions refused by a parallel one that then find a place free again (a run ended) try this often. */
const ADMISSION_ATTEMPTS = 3;

/** The run-count quotas set, as limits of the insert of a run at `now`. */
const runCountLimits = (limits: QuotaLimitsDto, now: Date): RunCountLimits => ({
  ...(limits.concurrent_runs !== undefined && { inProgress: limits.concurrent_runs }),
  ...(limits.runs_per_day !== undefined && {
    createdSince: { from: windowOf('day', now).from, limit: limits.runs_per_day },
  }),
});

/** The 429 of a quota used up: its window, when it resets and when to try again. */
function refusal(userId: string, state: QuotaStateDto, now: Date): DomainError {
  const retryAfter =
    state.resets_at === null
      ? CONCURRENT_RETRY_SECONDS
      : Math.max(1, Math.ceil((Date.parse(state.resets_at) - now.getTime()) / 1000));
  const until = state.resets_at === null ? 'until one of them ends' : `until ${state.resets_at}`;
  return new DomainError(
    'too_many_requests',
    `Quota ${state.quota} of user "${userId}" is used up (${state.used} of ${state.limit} per ${state.window}): ` +
      `no new run ${until}`,
    [],
    { quota: state.quota, window: state.window, limit: state.limit, used: state.used, resets_at: state.resets_at },
    retryAfter,
  );
}

/** Only the quotas the body sets, in a fixed order: what is stored and shown. */
const setLimits = (body: QuotaLimitsDto): QuotaLimitsDto =>
  Object.fromEntries(QUOTA_NAMES.filter((name) => body[name] !== undefined).map((name) => [name, body[name]]));

/**
 * Quotas per user, set by admins, and the admission check every new run passes (RUN_ADMISSION): past a quota the
 * run is refused with a 429 naming the quota, its window and when it resets. Runs already running go on.
 */
@Injectable()
export class QuotasService implements RunAdmission {
  constructor(
    @InjectRepository(QuotaEntity) private readonly quotas: Repository<QuotaEntity>,
    private readonly usage: QuotaUsage,
    private readonly audit: AuditService,
  ) {}

  async get(userId: string, principal: Principal): Promise<QuotaResponse> {
    if (userId !== principal.userId && !isAdmin(principal))
      throw DomainError.forbidden('Only admins read other users’ quotas');
    const row = await this.quotas.findOneBy({ userId });
    return this.toResponse(userId, row);
  }

  async list(query: PageQuery): Promise<Page<QuotaResponse>> {
    const [rows, total] = await this.quotas.findAndCount({
      order: { userId: 'ASC' },
      skip: (query.page - 1) * query.page_size,
      take: query.page_size,
    });
    const items = [];
    for (const row of rows) items.push(await this.toResponse(row.userId, row));
    return { items, page: query.page, page_size: query.page_size, total };
  }

  /** Replaces the user's quotas (admins); an empty body removes every limit. */
  async put(userId: string, body: QuotaLimitsDto, principal: Principal): Promise<QuotaResponse> {
    const limits = setLimits(body);
    const row: QuotaEntity = { userId, limits, updatedAt: new Date() };
    await this.quotas.manager.transaction(async (manager) => {
      const existed = await manager.existsBy(QuotaEntity, { userId });
      await manager.save(QuotaEntity, row);
      await this.audit.record(manager, principal, { action: existed ? 'update' : 'create', type: 'quota', id: userId });
    });
    return this.toResponse(userId, row);
  }

  /**
   * RunAdmission: reads the user's quotas at once; the admission throws 429 when one of them is used up, else
   * stores the run through `insert` with the run-count quotas as limits of the insert itself, so parallel
   * admissions cannot both take the last place. A refused insert means a parallel one took it: the states read
   * again name the quota (a run that ended meanwhile frees a place: then the admission tries again).
   */
  prepare(userId: string): AdmitRun {
    const read = this.quotas.findOneBy({ userId });
    // An admission not used (the run's definition was refused) leaves its read unobserved.
    read.catch(() => undefined);
    return async (insert) => this.admit(userId, await read, insert);
  }

  private async admit(userId: string, row: QuotaEntity | null, insert: InsertRunWithin): Promise<void> {
    if (!row) {
      await insert({}, this.quotas.manager);
      return;
    }
    for (let attempt = 1; ; attempt += 1) {
      const now = new Date();
      const states = await this.states(userId, row.limits, now);
      const exceeded = states.find((state) => state.exceeded);
      if (exceeded) throw refusal(userId, exceeded, now);
      if (await this.insertLocked(userId, runCountLimits(row.limits, now), insert)) return;
      if (attempt < ADMISSION_ATTEMPTS) continue;
      const counted = states.find((state) => RUN_COUNTS.includes(state.quota));
      if (!counted) throw new Error(`The run of user "${userId}" was not stored under no run-count quota`);
      throw refusal(userId, { ...counted, used: counted.limit }, now);
    }
  }

  /**
   * Runs `insert` while no other admission of the user runs. SQLite needs nothing more: its INSERT … SELECT
   * counts and writes under the database's write lock. MySQL/MariaDB count in a consistent read, so the user's
   * quotas row is locked first (a transaction per admission, READ COMMITTED: the count sees the runs the
   * admissions before it committed).
   */
  private insertLocked(userId: string, limits: RunCountLimits, insert: InsertRunWithin): Promise<boolean> {
    const manager = this.quotas.manager;
    if (manager.connection.options.type !== 'mysql') return insert(limits, manager);
    return manager.transaction('READ COMMITTED', async (locked) => {
      await locked
        .createQueryBuilder(QuotaEntity, 'quota')
        .setLock('pessimistic_write')
        .where('quota.user_id = :userId', { userId })
        .getOne();
      return insert(limits, locked);
    });
  }

  private async toResponse(userId: string, row: QuotaEntity | null): Promise<QuotaResponse> {
    const limits = row?.limits ?? {};
    return {
      user_id: userId,
      limits,
      states: await this.states(userId, limits, new Date()),
      updated_at: row?.updatedAt.toISOString() ?? null,
    };
  }

  /** Each quota set, with what its window has used; counted concurrency first, the cheapest counts before the others. */
  private async states(userId: string, limits: QuotaLimitsDto, now: Date): Promise<QuotaStateDto[]> {
    const states: QuotaStateDto[] = [];
    for (const quota of QUOTA_NAMES) {
      const limit = limits[quota];
      if (limit === undefined) continue;
      const window = WINDOWS[quota];
      const { from, resetsAt } = windowOf(window, now);
      const to = resetsAt ?? now;
      const amount = typeof limit === 'number' ? limit : limit.amount;
      const used = await this.used(quota, userId, limits, from, to);
      states.push({
        quota,
        window,
        limit: amount,
        used,
        resets_at: resetsAt?.toISOString() ?? null,
        exceeded: used >= amount,
      });
    }
    return states;
  }

  private async used(quota: QuotaName, userId: string, limits: QuotaLimitsDto, from: Date, to: Date) {
    switch (quota) {
      case 'concurrent_runs':
        return this.usage.runsInProgress(userId);
      case 'runs_per_day':
        return this.usage.runsCreatedSince(userId, from);
      case 'tokens_per_day':
        return this.usage.tokens(userId, from, to);
      case 'cost_per_day':
      case 'cost_per_month':
        return this.usage.cost(userId, limits[quota]?.currency ?? 'USD', from, to);
      case 'code_cpu_seconds_per_day': {
        const byDay = await this.usage.codeSecondsByDay(userId, from, to);
        return [...byDay.values()].reduce((sum, seconds) => sum + seconds, 0);
      }
    }
  }
}
