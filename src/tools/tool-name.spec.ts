import { toToolName, uniqueToolName } from './tool-name';

describe(toToolName.name, () => {
  it('should keep a valid name as it is', () => {
    expect(toToolName('files__read_file')).toBe('files__read_file');
  });

  it('should replace characters outside letters, digits, _ and - with _', () => {
    expect(toToolName('my server__get.weather/now')).toBe('my_server__get_weather_now');
  });

  it('should cut a long name to 64 characters and keep long names that differ late distinct', () => {
    const first = toToolName(`${'a'.repeat(80)}_one`);
    const second = toToolName(`${'a'.repeat(80)}_two`);
    expect(first).toMatch(/^[a-zA-Z0-9_-]{64}$/);
    expect(second).toMatch(/^[a-zA-Z0-9_-]{64}$/);
    expect(first).not.toBe(second);
  });

  it('should never return an empty name', () => {
    expect(toToolName('')).toBe('_');
  });
});

describe(uniqueToolName.name, () => {
  it('should number a name that is taken, staying within 64 characters', () => {
    expect(uniqueToolName('echo', new Set(['echo', 'echo_2']))).toBe('echo_3');
    expect(uniqueToolName('x'.repeat(64), new Set(['x'.repeat(64)]))).toBe(`${'x'.repeat(62)}_2`);
  });

  it('should number an empty name into a valid one', () => {
    expect(uniqueToolName('', new Set())).toBe('_2');
  });
});
