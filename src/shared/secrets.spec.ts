import {
  SECRET_MASK,
  dropMaskedValues,
  isSecretName,
  literalSecretsInUrl,
  maskSecrets,
  redactSecretValues,
  redactUrl,
  restoreMaskedSecrets,
} from './secrets';

describe(isSecretName.name, () => {
  it.each([
    'Authorization',
    'proxy-authorization',
    'Cookie',
    'X-Api-Token',
    'x-api-key',
    'api_key',
    'apikey',
    'access_token',
    'client_secret',
    'PASSWORD',
    'X-Auth-User',
    'sessionid',
    'X-Amz-Signature',
    'token',
    'key',
  ])('should treat %s as a credential', (name) => {
    expect(isSecretName(name)).toBe(true);
  });

  it.each(['Accept', 'Content-Type', 'city', 'units', 'user', 'X-Request-Id', 'page', 'type', 'header_name'])(
    'should not treat %s as a credential',
    (name) => {
      expect(isSecretName(name)).toBe(false);
    },
  );
});

describe(redactUrl.name, () => {
  it('should mask credential query values and keep everything else as written', () => {
    expect(redactUrl('https://api.test/v1?city=Oslo&api_key=k3y&Access_Token=t%2F1#top')).toBe(
      `https://api.test/v1?city=Oslo&api_key=${SECRET_MASK}&Access_Token=${SECRET_MASK}#top`,
    );
  });

  it('should mask extra names, encoded names and the password of user:password@', () => {
    expect(redactUrl('https://ann:pw@api.test/?appid=1&x%2Dtoken=2', ['AppId'])).toBe(
      `https://ann:${SECRET_MASK}@api.test/?appid=${SECRET_MASK}&x%2Dtoken=${SECRET_MASK}`,
    );
  });

  it('should leave placeholders, empty values and URLs without a query alone', () => {
    expect(redactUrl('https://api.test/{city}?token={token}&key=')).toBe('https://api.test/{city}?token={token}&key=');
    expect(redactUrl('https://api.test:8080/a@b')).toBe('https://api.test:8080/a@b');
  });
});

describe(literalSecretsInUrl.name, () => {
  it('should name only credential parameters with a literal value', () => {
    expect(literalSecretsInUrl('https://api.test/?access_token=abc&city={city}&key={key}&sig=Bearer%20{x}')).toEqual([
      'access_token',
    ]);
  });
});

describe(maskSecrets.name, () => {
  const config = {
    url: 'https://api.test/?city={city}&api_key=k3y',
    headers: { 'X-Api-Token': 'tok-123', Accept: 'application/json', Authorization: 'Bearer {token}' },
    query: { access_token: 'qs-secret', units: 'metric' },
    auth: { type: 'bearer', token: 'bearer-secret', header_name: 'X-Key' },
    body: { session_id: 'sess-1', items: ['plain'] },
    retry: { count: 2 },
  };

  it('should mask every credential-named string and URL query value, and nothing else', () => {
    expect(maskSecrets(config)).toEqual({
      url: `https://api.test/?city={city}&api_key=${SECRET_MASK}`,
      headers: { 'X-Api-Token': SECRET_MASK, Accept: 'application/json', Authorization: 'Bearer {token}' },
      query: { access_token: SECRET_MASK, units: 'metric' },
      auth: { type: 'bearer', token: SECRET_MASK, header_name: 'X-Key' },
      body: { session_id: SECRET_MASK, items: ['plain'] },
      retry: { count: 2 },
    });
  });

  it('should not change its input and keep a __proto__ key as data', () => {
    const input = JSON.parse('{"__proto__": {"token": "t0k3n"}}') as Record<string, unknown>;

    const masked = maskSecrets(input);

    expect(Object.getOwnPropertyDescriptor(masked, '__proto__')?.value).toEqual({ token: SECRET_MASK });
    expect(Object.getPrototypeOf(masked)).toBe(Object.prototype);
    expect(JSON.stringify(input)).toBe('{"__proto__":{"token":"t0k3n"}}');
  });

  describe(restoreMaskedSecrets.name, () => {
    it('should give back the stored values wherever the mask came back unchanged', () => {
      const edited = { ...maskSecrets(config), retry: { count: 3 } };

      expect(restoreMaskedSecrets(edited, config)).toEqual({ ...config, retry: { count: 3 } });
    });

    it('should keep new values and a mask with nothing stored behind it', () => {
      const next = { headers: { 'X-Api-Token': 'new-token', 'X-Other-Key': SECRET_MASK }, url: 'https://b.test/' };

      expect(restoreMaskedSecrets(next, config)).toEqual(next);
    });
  });
});

describe(redactSecretValues.name, () => {
  it('should replace every form of each secret inside nested strings', () => {
    const secret = 'k3y/with space';
    const value = {
      final_url: `https://api.test/?key=${encodeURIComponent(secret)}`,
      echo: [`got ${secret}`, `form: key=${new URLSearchParams({ s: secret }).toString().slice(2)}`],
      status: 200,
    };

    expect(redactSecretValues(value, [secret])).toEqual({
      final_url: `https://api.test/?key=${SECRET_MASK}`,
      echo: [`got ${SECRET_MASK}`, `form: key=${SECRET_MASK}`],
      status: 200,
    });
  });

  it('should leave values shorter than four characters alone', () => {
    expect(redactSecretValues({ text: 'a pw here' }, ['pw'])).toEqual({ text: 'a pw here' });
  });
});

describe(dropMaskedValues.name, () => {
  it('should drop every value that is exactly the mask, at any depth, and name where each was', () => {
    const sut = dropMaskedValues({
      url: 'https://api.example.com/{id}',
      auth: { type: 'bearer', token: SECRET_MASK },
      headers: { Authorization: SECRET_MASK, Accept: 'application/json' },
      list: [{ key: SECRET_MASK, keep: 'x' }],
    });

    expect(sut.value).toEqual({
      url: 'https://api.example.com/{id}',
      auth: { type: 'bearer' },
      headers: { Accept: 'application/json' },
      list: [{ keep: 'x' }],
    });
    expect(sut.dropped).toEqual(['auth.token', 'headers.Authorization', 'list[0].key']);
  });
});
