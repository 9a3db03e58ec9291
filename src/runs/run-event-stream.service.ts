import { Injectable, type MessageEvent } from '@nestjs/common';
import type { Observable } from 'rxjs';
import type { Principal } from '../common/auth/principal';
import { FINISHED_STATUSES } from './run.entity';
import { RunEventsService } from './run-events.service';
import { RunLeasesService } from './run-leases.service';
import { RunQueriesService } from './run-queries.service';

/** The event stream of a run its caller may see. */
@Injectable()
export class RunEventStreamService {
  constructor(
    private readonly runs: RunQueriesService,
    private readonly events: RunEventsService,
    private readonly leases: RunLeasesService,
  ) {}

  /** Fails with not-found before any byte is sent, so the problem filter still answers 404. */
  async open(runId: string, principal: Principal, afterSeq: number): Promise<Observable<MessageEvent>> {
    await this.runs.findVisible(runId, principal);
    // Its log is complete once the run has finished and no worker still holds it (a worker stores run.finished,
    // then lets go of the run; a dead worker's lease runs out).
    return this.events.stream(runId, afterSeq, async () => {
      const run = await this.runs.findVisible(runId, principal);
      return FINISHED_STATUSES.includes(run.status) && !(await this.leases.isHeld(runId));
    });
  }
}
