import { invalidField } from './errors.js';

// An RFC 3339 date-time as the contract's `format: date-time` (ajv-formats) accepts it: `T`, `t` or a space
// between date and time, seconds up to 60 (a leap second), any number of fractional digits, `Z`/`z` or an
// offset of up to ±23:59 with or without its colon, or hours alone.
const DATE_TIME = /^(\d{4})-(\d\d)-(\d\d)[T\s](\d\d):(\d\d):(\d\d)(?:\.(\d+))?(?:Z|([+-])(\d\d)(?::?(\d\d))?)$/i;

/** The first and the last instant PostgreSQL's timestamptz and the contract's date-time output both take (UTC). */
export const EARLIEST_INSTANT = new Date('0001-01-01T00:00:00.000Z');
export const LATEST_INSTANT = new Date('9999-12-31T23:59:59.999Z');

/**
 * The instant a date-time input names (one the contract validated as `format: date-time`), where `new Date()`
 * refuses some (a leap second, an offset of hours alone): a leap second (`23:59:60`) is the start of the next
 * second, fractional digits past the millisecond are dropped. Any year 0000-9999, with any offset, so the
 * instant may lie outside what PostgreSQL stores (see `filterInstantOf` and `storedInstantOf`).
 */
export function instantOf(text: string): Date {
  const match = DATE_TIME.exec(text);
  if (!match) throw new Error(`Not an RFC 3339 date-time: ${JSON.stringify(text)}`);
  const [, year, month, day, hours, minutes, seconds, fraction = '', sign, offsetHours = '0', offsetMinutes = '0'] =
    match;
  const instant = new Date(0);
  // setUTCFullYear, not Date.UTC: Date.UTC reads years 0-99 as 1900-1999.
  instant.setUTCFullYear(Number(year), Number(month) - 1, Number(day));
  instant.setUTCHours(Number(hours), Number(minutes), Number(seconds), Number(fraction.padEnd(3, '0').slice(0, 3)));
  const offset = (sign === '-' ? -1 : 1) * (Number(offsetHours) * 60 + Number(offsetMinutes));
  return new Date(instant.getTime() - offset * 60_000);
}

/**
 * `instantOf(text)` for comparing with stored timestamps (a filter): an instant before year 1 is the first
 * instant of year 1, one after year 9999 its last (a new Date each time), which PostgreSQL takes.
 */
export function filterInstantOf(text: string): Date {
  const instant = instantOf(text);
  if (instant < EARLIEST_INSTANT) return new Date(EARLIEST_INSTANT);
  return instant > LATEST_INSTANT ? new Date(LATEST_INSTANT) : instant;
}

/** `instantOf(text)` to store in `field`: 400 invalid_request on `field` when it lies, in UTC, outside years 0001-9999. */
export function storedInstantOf(text: string, field: string): Date {
  const instant = instantOf(text);
  if (instant < EARLIEST_INSTANT || instant > LATEST_INSTANT) {
    throw invalidField(
      field,
      `${field} must lie between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z in UTC; ${text} is ${instant < EARLIEST_INSTANT ? 'before' : 'after'} that.`,
    );
  }
  return instant;
}
