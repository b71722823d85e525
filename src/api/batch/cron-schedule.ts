import { CronExpressionParser } from 'cron-parser';

/**
 * A CronJob's schedule, read by cron-parser with the rules of upstream's standard parser: five
 * fields (minute hour day-of-month month day-of-week) or a macro (`@yearly`, `@annually`,
 * `@monthly`, `@weekly`, `@daily`, `@midnight`, `@hourly`), in `timeZone` (IANA name) or UTC.
 * cron-parser also reads a sixth (seconds) field, which upstream refuses: so is it here. A `TZ=`
 * or `CRON_TZ=` prefix is refused as upstream does (the field `timeZone` says it).
 */
export interface CronSchedule {
  /** The schedule times after `from` (exclusive) up to `to` (inclusive), at most `max` of them. */
  timesBetween(from: Date, to: Date, max: number): Date[];
  /** The first schedule time after `from` (exclusive). */
  next(from: Date): Date;
}

const MACROS = new Set(['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly']);

/** The schedule, or why it is not one (a message for a 422's cause). */
export function parseCronSchedule(schedule: string, timeZone?: string): CronSchedule | string {
  const text = schedule.trim();
  if (/^(CRON_)?TZ=/.test(text) || text.includes('TZ=')) return 'cannot use TZ or CRON_TZ in schedule, use timeZone field instead';
  if (text.startsWith('@')) {
    if (!MACROS.has(text)) return `unrecognized descriptor: ${text}`;
  } else {
    const fields = text.split(/\s+/).length;
    if (fields !== 5) return `expected exactly 5 fields, found ${fields}: ${JSON.stringify(text)}`;
  }
  const zone = timeZone ?? 'UTC';
  const zoneProblem = timeZoneProblem(zone);
  if (zoneProblem) return zoneProblem;
  try {
    CronExpressionParser.parse(text, { tz: zone });
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  return {
    timesBetween(from, to, max) {
      const times: Date[] = [];
      const expression = CronExpressionParser.parse(text, { tz: zone, currentDate: from, endDate: to });
      while (times.length < max && expression.hasNext()) times.push(expression.next().toDate());
      return times;
    },
    next(from) {
      return CronExpressionParser.parse(text, { tz: zone, currentDate: from }).next().toDate();
    },
  };
}

/** Why `zone` is not an IANA time zone name, or undefined when it is one. */
export function timeZoneProblem(zone: string): string | undefined {
  // Go's LoadLocation takes "Local" for the machine's zone; upstream refuses it (the answer would depend on the node).
  if (zone === '' || zone.toLowerCase() === 'local') return `unknown time zone ${zone}`;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return undefined;
  } catch {
    return `unknown time zone ${zone}`;
  }
}
