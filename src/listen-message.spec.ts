import { listenMessage } from './listen-message';

describe(listenMessage.name, () => {
  it('should name the wildcard address it is bound to, with a reachable loopback URL', () => {
    const message = listenMessage({ address: '0.0.0.0', family: 'IPv4', port: 3000 });

    expect(message).toMatch(
      /^ToolFlow listening on 0\.0\.0\.0:3000 \(all IPv4 interfaces; from this machine http:\/\/127\.0\.0\.1:3000/,
    );
  });

  it('should show a specific bind address as the URL, IPv6 in brackets', () => {
    expect(listenMessage({ address: '127.0.0.1', family: 'IPv4', port: 8080 })).toBe(
      'ToolFlow listening on http://127.0.0.1:8080 (docs: http://127.0.0.1:8080/api/docs)',
    );
    expect(listenMessage({ address: '::', family: 'IPv6', port: 80 })).toContain(
      'listening on [::]:80 (all interfaces',
    );
  });
});
