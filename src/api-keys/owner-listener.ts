/** Token of the OwnerListener port (a Port, see common/port.ts); the root module registers it. */
export const OWNER_LISTENER = Symbol('OWNER_LISTENER');

/** Port: data kept per owner (API user) above api-keys/ (tool selection's learned evidence). */
export interface OwnerListener {
  /** The owner's last active API key was revoked: what was learned about the owner's use may go. */
  ownerRemoved(userId: string): Promise<void>;
}
