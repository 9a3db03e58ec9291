/**
 * Port: before a run is created for a user, runs/ asks the module that keeps quotas (quotas/ registers
 * RUN_ADMISSION) whether the user may start one more; it throws a DomainError (429) naming the quota when not.
 * Child runs of workflow tools are part of their parent's run and are not asked about.
 */
export interface RunAdmission {
  admit(userId: string): Promise<void>;
}

export const RUN_ADMISSION = Symbol('RUN_ADMISSION');
