import { AddressPolicy } from './address-policy';
import { checkOutboundUrl, parseOutboundUrl } from './url-policy';

describe(checkOutboundUrl.name, () => {
  const check = (url: string, allowPrivate: string[] = []): void =>
    checkOutboundUrl(parseOutboundUrl(url), new AddressPolicy(allowPrivate));

  it.each([
    ['http://2130706433/', 'loopback'],
    ['http://[::ffff:7f00:1]/', 'loopback'],
    ['http://10.0.0.1./', 'private'],
    ['ws://example.com/', 'scheme'],
    ['http://u:p@example.com/', 'userinfo'],
    ['http://dev.localhost/', 'localhost'],
    ['http://metadata.google.internal./', 'cloud-metadata'],
  ])('should refuse %s from the URL alone (%s)', (url, rule) => {
    expect(() => check(url)).toThrow(expect.objectContaining({ rule }) as Error);
  });

  it('should leave ordinary host names to the connect-time check', () => {
    expect(() => check('https://api.example.com/v1?q=1')).not.toThrow();
  });

  it('should let localhost through when loopback is allowlisted', () => {
    expect(() => check('http://localhost:8080/', ['127.0.0.1/32'])).not.toThrow();
  });
});
