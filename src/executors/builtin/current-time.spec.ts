import { type ToolExecuteContext } from '../../shared/tool-definition';
import { ToolExecutionError } from '../../shared/tool-errors';
import type { BuiltinEnvironment } from './builtin-tool';
import { currentTime, currentTimeIn, type CurrentTimeParams } from './current-time';

const instant = new Date('2024-07-01T10:30:15.000Z');

describe(currentTimeIn.name, () => {
  it('should describe the instant in UTC', () => {
    expect(currentTimeIn('UTC', instant)).toEqual({
      timezone: 'UTC',
      iso: '2024-07-01T10:30:15.000Z',
      local_date: '2024-07-01',
      local_time: '10:30:15',
      local_iso: '2024-07-01T10:30:15+00:00',
      weekday: 'Monday',
      utc_offset: '+00:00',
      unix_seconds: 1719829815,
    });
  });

  it('should apply the zone offset, daylight saving included', () => {
    expect(currentTimeIn('Europe/Paris', instant)).toMatchObject({
      local_time: '12:30:15',
      utc_offset: '+02:00',
      local_iso: '2024-07-01T12:30:15+02:00',
    });
    expect(currentTimeIn('America/New_York', new Date('2024-01-01T03:00:00Z'))).toMatchObject({
      local_date: '2023-12-31',
      weekday: 'Sunday',
      utc_offset: '-05:00',
    });
  });

  it('should refuse an unknown zone with an example', () => {
    expect(() => currentTimeIn('Mars/Olympus', instant)).toThrow(ToolExecutionError);
    expect(() => currentTimeIn('Mars/Olympus', instant)).toThrow(
      'unknown time zone "Mars/Olympus": use an IANA name such as "Europe/Paris"',
    );
  });
});

describe('current_time tool', () => {
  afterEach(() => jest.useRealTimers());

  it('should default to UTC and use the current clock', async () => {
    jest.useFakeTimers({ now: instant });

    const result = await currentTime.execute({}, {} as ToolExecuteContext<CurrentTimeParams>, {} as BuiltinEnvironment);

    expect(result.response).toBe(
      'Monday 2024-07-01 10:30:15 (UTC, UTC+00:00); ISO 2024-07-01T10:30:15.000Z; unix 1719829815',
    );
    expect(result.data).toMatchObject({ timezone: 'UTC' });
  });
});
