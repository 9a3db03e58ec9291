import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';

/** Who holds a lease or a heartbeat row: this process, told apart from a restart with the same pid by 4 random bytes. */
export const processOwnerId = (): string =>
  `${hostname().slice(0, 40)}:${process.pid}:${randomBytes(4).toString('hex')}`;
