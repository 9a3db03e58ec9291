import { AddressPolicy } from './address-policy';

describe(AddressPolicy.name, () => {
  const sut = new AddressPolicy();

  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.0.10', 'private'],
    ['100.64.0.1', 'carrier-grade-nat'],
    ['169.254.169.254', 'cloud-metadata'],
    ['169.254.10.10', 'link-local'],
    ['0.0.0.0', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['239.1.1.1', 'multicast'],
    ['198.19.0.1', 'benchmarking'],
    ['203.0.113.9', 'documentation'],
    ['250.1.1.1', 'reserved'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::7f00:1', 'loopback'],
    ['::808:808', 'reserved'],
    ['fd00:ec2::254', 'cloud-metadata'],
    ['fc00::1', 'unique-local'],
    ['fe80::1%eth0', 'link-local'],
    ['ff02::1', 'multicast'],
    ['2002:a00:1::1', 'private'],
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'loopback'],
    ['64:ff9b::a00:1', 'private'],
    ['4000::1', 'reserved'],
  ])('should refuse %s as %s', (address, rule) => {
    expect(sut.check(address)).toMatchObject({ rule });
  });

  it.each(['93.184.216.34', '8.8.8.8', '2606:4700::1111', '::ffff:808:808', '64:ff9b::808:808', '2002:808:808::1'])(
    'should allow the public address %s',
    (address) => {
      expect(sut.check(address)).toBeNull();
    },
  );

  it('should name the range and the allowlist setting in the refusal', () => {
    expect(sut.check('10.1.2.3')?.message).toBe(
      'blocked: 10.1.2.3 is in private range 10.0.0.0/8; allow it with OUTBOUND_ALLOW_PRIVATE',
    );
  });

  it('should say which IPv4 address an IPv6 address embeds', () => {
    expect(sut.check('::ffff:a9fe:a9fe')?.message).toBe(
      'blocked: ::ffff:a9fe:a9fe embeds 169.254.169.254, which is the cloud metadata address 169.254.169.254/32',
    );
  });

  it('should let allowlisted ranges through, including their IPv4-mapped form', () => {
    const allowing = new AddressPolicy(['10.0.0.0/8', '127.0.0.1']);

    expect(allowing.check('10.9.9.9')).toBeNull();
    expect(allowing.check('127.0.0.1')).toBeNull();
    expect(allowing.check('::ffff:7f00:1')).toBeNull();
    expect(allowing.check('127.0.0.2')).toMatchObject({ rule: 'loopback' });
    expect(allowing.check('192.168.1.1')).toMatchObject({ rule: 'private' });
  });

  it('should reject an invalid allowlist entry at construction', () => {
    expect(() => new AddressPolicy(['10.0.0.0/99'])).toThrow('invalid CIDR');
  });

  it('should refuse something that is not an IP address', () => {
    expect(sut.check('example.com')).toMatchObject({ rule: 'invalid-url' });
  });

  it('should answer an address asked again as the first time, by its own allowlist', () => {
    const allowing = new AddressPolicy(['127.0.0.1']);
    const answers = (policy: AddressPolicy, address: string) => [1, 2, 3].map(() => policy.check(address));

    expect(answers(allowing, '127.0.0.1')).toEqual([null, null, null]);
    expect(answers(sut, '127.0.0.1').map((refusal) => refusal?.rule)).toEqual(['loopback', 'loopback', 'loopback']);
    expect(answers(allowing, '10.0.0.1').map((refusal) => refusal?.rule)).toEqual(['private', 'private', 'private']);
    expect(answers(allowing, '[::ffff:7f00:1]')).toEqual([null, null, null]);
  });
});
