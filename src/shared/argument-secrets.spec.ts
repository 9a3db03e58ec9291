import {
  isCredentialArgumentName,
  maskArguments,
  restoreMaskedArguments,
  secretArgumentNames,
} from './argument-secrets';
import { redactJsonText } from './json-text-redactor';
import { SECRET_MASK } from './secrets';

describe('isCredentialArgumentName', () => {
  it.each(['author', 'keyword', 'sort_key', 'monkey', 'authority', 'max_tokens', 'keys', 'secretary', 'tokenizer'])(
    'should not take the ordinary name %s for a credential',
    (name) => {
      expect(isCredentialArgumentName(name)).toBe(false);
    },
  );

  it.each([
    'api_key',
    'apiKey',
    'APIKey',
    'X-Api-Key',
    'apikey',
    'access_token',
    'accessToken',
    'refresh-token',
    'password',
    'db_password',
    'secret',
    'client_secret',
    'Authorization',
    'cookie',
    'private_key',
    'session_id',
  ])('should take the whole-word credential name %s for a credential', (name) => {
    expect(isCredentialArgumentName(name)).toBe(true);
  });
});

describe('maskArguments', () => {
  it('should show ordinary arguments whose names only contain a credential word', () => {
    const args = { author: 'Jane Austen', keyword: 'pride', sort_key: 'title' };

    expect(maskArguments(args)).toEqual(args);
    expect(redactJsonText(JSON.stringify(args))).toBe(JSON.stringify(args));
  });

  it('should mask what the schema declares secret, whatever the name, at any depth', () => {
    const schema = {
      type: 'object',
      properties: {
        pin: { type: 'string', format: 'password' },
        login: {
          type: 'object',
          properties: { passe: { type: 'string', writeOnly: true }, code: { 'x-secret': true, type: 'string' } },
        },
        plain: { type: 'string' },
      },
    };
    const declared = secretArgumentNames(schema);
    const args = { pin: '1234', login: { passe: 'mot', code: 'c0de' }, plain: 'shown' };

    const masked = { pin: SECRET_MASK, login: { passe: SECRET_MASK, code: SECRET_MASK }, plain: 'shown' };
    expect([...declared].sort()).toEqual(['code', 'passe', 'pin']);
    expect(maskArguments(args, declared)).toEqual(masked);
    expect(redactJsonText(JSON.stringify(args), declared)).toBe(JSON.stringify(masked));
  });

  it('should mask everything beneath a credential argument and credential query values in URLs', () => {
    const args = { credentials: { user: 'u', list: ['p'] }, link: 'https://x.test/?api_key=k123&q=1' };

    expect(maskArguments(args)).toEqual({
      credentials: { user: SECRET_MASK, list: [SECRET_MASK] },
      link: `https://x.test/?api_key=${SECRET_MASK}&q=1`,
    });
  });

  it('should mask arguments nested far deeper than the stack allows', () => {
    let deep: unknown = { password: 'hunter2' };
    for (let level = 0; level < 100_000; level++) deep = [deep];

    let masked = maskArguments(deep);
    for (let level = 0; level < 100_000; level++) masked = (masked as unknown[])[0];
    expect(masked).toEqual({ password: SECRET_MASK });
  });

  it('should keep the stored value when a person sends the mask back, and take a changed one', () => {
    const declared = secretArgumentNames({ properties: { pin: { format: 'password' } } });
    const stored = { pin: '1234', api_key: 'k-1', link: 'https://x.test/?token=t1', n: 1 };
    const edited = { ...maskArguments(stored, declared), n: 2 };

    expect(restoreMaskedArguments(edited, stored, declared)).toEqual({ ...stored, n: 2 });
    expect(restoreMaskedArguments({ ...edited, api_key: 'new' }, stored, declared)).toMatchObject({ api_key: 'new' });
  });
});
