import { ToolExecutionError } from '../../shared/tool-errors';
import { defineBuiltin } from './builtin-tool';

export interface CurrentTimeParams {
  timezone?: string;
}

export interface CurrentTime {
  timezone: string;
  iso: string;
  local_date: string;
  local_time: string;
  local_iso: string;
  weekday: string;
  utc_offset: string;
  unix_seconds: number;
}

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  try {
    return new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      weekday: 'long',
      timeZoneName: 'longOffset',
    });
  } catch {
    throw new ToolExecutionError(
      `unknown time zone ${JSON.stringify(timeZone)}: use an IANA name such as "Europe/Paris", "America/New_York" or "UTC"`,
    );
  }
}

/** The given instant as seen in an IANA time zone. */
export function currentTimeIn(timeZone: string, now: Date): CurrentTime {
  const formatter = formatterFor(timeZone);
  const parts = Object.fromEntries(formatter.formatToParts(now).map((part) => [part.type, part.value]));
  const offset = parts.timeZoneName === 'GMT' ? '+00:00' : (parts.timeZoneName ?? 'GMT+00:00').replace('GMT', '');
  const localDate = `${parts.year}-${parts.month}-${parts.day}`;
  const localTime = `${parts.hour}:${parts.minute}:${parts.second}`;
  return {
    timezone: formatter.resolvedOptions().timeZone,
    iso: now.toISOString(),
    local_date: localDate,
    local_time: localTime,
    local_iso: `${localDate}T${localTime}${offset}`,
    weekday: parts.weekday ?? '',
    utc_offset: offset,
    unix_seconds: Math.floor(now.getTime() / 1000),
  };
}

export const currentTime = defineBuiltin<CurrentTimeParams>({
  name: 'current_time',
  description:
    'Returns the current date and time in a time zone: ISO timestamp, local date and time, weekday, UTC offset ' +
    "and unix seconds. Use it whenever the answer depends on today's date or the current time.",
  category: 'time',
  effect: 'read_only',
  parameters: {
    type: 'object',
    properties: {
      timezone: {
        type: 'string',
        minLength: 1,
        maxLength: 64,
        default: 'UTC',
        description: 'IANA time zone name such as "Europe/Paris" or "America/New_York". Defaults to "UTC".',
      },
    },
    required: [],
    additionalProperties: false,
  },
  execute: ({ timezone }) =>
    new Promise((resolve) => {
      const time = currentTimeIn(timezone ?? 'UTC', new Date());
      resolve({
        response: `${time.weekday} ${time.local_date} ${time.local_time} (${time.timezone}, UTC${time.utc_offset}); ISO ${time.iso}; unix ${time.unix_seconds}`,
        data: time,
      });
    }),
});
