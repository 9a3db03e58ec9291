import { setOwn } from './set-own';

describe(setOwn.name, () => {
  it('should keep a key named __proto__ as data, leaving the prototype alone', () => {
    const sut: Record<string, unknown> = {};

    setOwn(sut, '__proto__', { polluted: true });

    expect(Object.getPrototypeOf(sut)).toBe(Object.prototype);
    expect(Object.keys(sut)).toEqual(['__proto__']);
    expect(JSON.stringify(sut)).toBe('{"__proto__":{"polluted":true}}');
  });

  it('should set other keys as own enumerable properties, names of Object.prototype included', () => {
    const sut: Record<string, unknown> = {};

    setOwn(sut, 'toString', 'text');
    setOwn(sut, 'token', 'value');

    expect(Object.getOwnPropertyDescriptor(sut, 'toString')).toEqual({
      value: 'text',
      enumerable: true,
      writable: true,
      configurable: true,
    });
    expect(Object.keys(sut)).toEqual(['toString', 'token']);
  });
});
