import type { LookupAddress } from 'node:dns';
import { AddressPolicy } from './address-policy';
import { createGuardedLookup } from './guarded-lookup';
import type { OutboundResolver } from './outbound-resolver';

type LookupOutcome = { error: NodeJS.ErrnoException | null; address: string | LookupAddress[] };

describe(createGuardedLookup.name, () => {
  const lookupOnce = (sut: ReturnType<typeof createGuardedLookup>, all: boolean, family = 0): Promise<LookupOutcome> =>
    new Promise((resolve) => sut('api.test', { all, family }, (error, address) => resolve({ error, address })));

  it('should check every lookup again so a rebinding answer is refused', async () => {
    const answers = ['93.184.216.34', '127.0.0.1'];
    const resolver: OutboundResolver = () => Promise.resolve([{ address: answers.shift() ?? '', family: 4 }]);
    const sut = createGuardedLookup(resolver, new AddressPolicy());

    const first = await lookupOnce(sut, false);
    const second = await lookupOnce(sut, false);

    expect(first).toEqual({ error: null, address: '93.184.216.34' });
    expect(second.error).toMatchObject({ rule: 'loopback' });
  });

  it('should refuse when any one of several addresses is blocked', async () => {
    const resolver: OutboundResolver = () =>
      Promise.resolve([
        { address: '93.184.216.34', family: 4 },
        { address: '10.0.0.7', family: 4 },
      ]);
    const sut = createGuardedLookup(resolver, new AddressPolicy());

    expect((await lookupOnce(sut, true)).error).toMatchObject({ rule: 'private' });
  });

  it('should return every address when asked for all and only the wanted family otherwise', async () => {
    const resolver: OutboundResolver = () =>
      Promise.resolve([
        { address: '2606:4700::1111', family: 6 },
        { address: '93.184.216.34', family: 4 },
      ]);
    const sut = createGuardedLookup(resolver, new AddressPolicy());

    expect((await lookupOnce(sut, true)).address).toHaveLength(2);
    expect((await lookupOnce(sut, false, 4)).address).toBe('93.184.216.34');
  });

  it('should report ENOTFOUND when no address of the wanted family exists', async () => {
    const resolver: OutboundResolver = () => Promise.resolve([{ address: '2606:4700::1111', family: 6 }]);
    const sut = createGuardedLookup(resolver, new AddressPolicy());

    expect((await lookupOnce(sut, false, 4)).error).toMatchObject({ code: 'ENOTFOUND' });
  });
});
