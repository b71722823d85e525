/**
 * The string and number formats a custom resource schema may name, and how a value is checked
 * against each. Formats svc does not know are not checked (Kubernetes drops them the same way);
 * `int32` and `int64` bound integers, the rest read strings.
 */

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const UUID = /^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const HOSTNAME = /^(?=.{1,253}$)[a-zA-Z0-9]([-a-zA-Z0-9]{0,61}[a-zA-Z0-9])?(\.[a-zA-Z0-9]([-a-zA-Z0-9]{0,61}[a-zA-Z0-9])?)*$/;
const IPV4 = /^((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;
const IPV6 = /^(([0-9a-fA-F]{1,4}:){7}[0-9a-fA-F]{1,4}|(([0-9a-fA-F]{1,4}:){0,7}[0-9a-fA-F]{0,4})?::(([0-9a-fA-F]{1,4}:){0,7}[0-9a-fA-F]{0,4})?)$/;
/** Go's time.ParseDuration: a sequence of decimal numbers with units. */
const DURATION = /^[-+]?((\d+(\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h))+$|^0$/;

const validDate = (text: string) => !Number.isNaN(Date.parse(text.slice(0, 10)));

const STRING_FORMATS: Readonly<Record<string, (text: string) => boolean>> = {
  'date-time': (t) => RFC3339.test(t) && validDate(t),
  datetime: (t) => RFC3339.test(t) && validDate(t),
  date: (t) => DATE.test(t) && validDate(t),
  byte: (t) => BASE64.test(t),
  uuid: (t) => UUID.test(t),
  email: (t) => EMAIL.test(t),
  hostname: (t) => HOSTNAME.test(t),
  ipv4: (t) => IPV4.test(t),
  ipv6: (t) => IPV6.test(t),
  cidr: (t) => {
    const [ip, bits, extra] = t.split('/');
    if (extra !== undefined || ip === undefined || bits === undefined || !/^\d{1,3}$/.test(bits)) return false;
    return (IPV4.test(ip) && Number(bits) <= 32) || (IPV6.test(ip) && Number(bits) <= 128);
  },
  duration: (t) => DURATION.test(t),
  uri: (t) => {
    try {
      return new URL(t).protocol.length > 1;
    } catch {
      return false;
    }
  },
};

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

/** Whether `value` is of `format`; true for formats not checked. */
export function matchesFormat(format: string, value: unknown): boolean {
  if (format === 'int32') return typeof value !== 'number' || (value >= INT32_MIN && value <= INT32_MAX);
  if (typeof value !== 'string') return true;
  const check = STRING_FORMATS[format];
  return check ? check(value) : true;
}

/** Formats whose values are checked. */
export const CHECKED_FORMATS: readonly string[] = ['int32', 'int64', ...Object.keys(STRING_FORMATS)];
