import { readJsonText, readNumberText } from '../../console/src/lib/form-text';

describe(readNumberText.name, () => {
  it('should read a typed number exactly, whatever the schema allows', () => {
    expect(readNumberText('500')).toEqual({ ok: true, value: 500 });
    expect(readNumberText('2.5')).toEqual({ ok: true, value: 2.5 });
    expect(readNumberText('-0.125')).toEqual({ ok: true, value: -0.125 });
    expect(readNumberText('1e3')).toEqual({ ok: true, value: 1000 });
  });

  it('should read empty text as no value', () => {
    expect(readNumberText('  ')).toEqual({ ok: true, value: undefined });
  });

  it('should refuse text it cannot read as exactly one number, never a part of it', () => {
    for (const text of ['12a', '1,5', '0x10', '+1', 'Infinity', '.5', '01']) {
      expect(readNumberText(text)).toEqual({ ok: false, problem: 'is not a number' });
    }
  });

  it('should refuse a number a double would change', () => {
    expect(readNumberText('1e400')).toEqual({ ok: false, problem: 'is too large for a number' });
    expect(readNumberText('12345678901234567890123')).toMatchObject({ ok: false });
    expect(readNumberText('0.10000000000000000000001')).toMatchObject({ ok: false });
    expect(readNumberText('9007199254740993')).toMatchObject({ ok: false });
    expect(readNumberText('9007199254740992')).toEqual({ ok: true, value: 9007199254740992 });
    expect(readNumberText('0.1000000000000000')).toEqual({ ok: true, value: 0.1 });
  });
});

describe(readJsonText.name, () => {
  it('should read JSON and refuse broken JSON instead of keeping an earlier value', () => {
    expect(readJsonText('{"a": [1, 2]}')).toEqual({ ok: true, value: { a: [1, 2] } });
    expect(readJsonText('')).toEqual({ ok: true, value: undefined });
    expect(readJsonText('{"a": [1, 2]')).toEqual({ ok: false, problem: 'is not valid JSON' });
  });
});
