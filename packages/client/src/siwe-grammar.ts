// The terms of an EIP-4361 (Sign-In with Ethereum) message, checked against the grammar the EIP
// gives for them: RFC 3986 authority, URI, pchar and reserved/unreserved characters, RFC 3339
// date-time, and the EIP's own nonce and chain-id rules. Each `…Problem` function returns a short
// reason when the text is not a valid term, or `undefined` when it is.

// RFC 3986 character classes, as the contents of a regular-expression character class.
const UNRESERVED = "A-Za-z0-9\\-._~";
const SUB_DELIMS = "!$&'()*+,;=";
const GEN_DELIMS = ":/?#\\[\\]@";
const PCT_ENCODED = "%[0-9A-Fa-f]{2}";

const USERINFO = `(?:[${UNRESERVED}${SUB_DELIMS}:]|${PCT_ENCODED})*`;
const REG_NAME = `(?:[${UNRESERVED}${SUB_DELIMS}]|${PCT_ENCODED})+`;
// An IPv6 address or an IPvFuture literal in brackets; IPv6 is checked for its characters only.
const IP_LITERAL = `\\[(?:[0-9A-Fa-f:.]+|v[0-9A-Fa-f]+\\.[${UNRESERVED}${SUB_DELIMS}:]+)\\]`;
const AUTHORITY = `(?:${USERINFO}@)?(?:${IP_LITERAL}|${REG_NAME})(?::[0-9]*)?`;
const SCHEME = "[A-Za-z][A-Za-z0-9+.\\-]*";

const authorityRe = new RegExp(`^${AUTHORITY}$`);
const schemeRe = new RegExp(`^${SCHEME}$`);
// A URI: scheme ":" then URI characters, with at most one "#" (the fragment may not hold another).
const uriRe = new RegExp(`^${SCHEME}:(?:[${UNRESERVED}${SUB_DELIMS}:/?@\\[\\]]|${PCT_ENCODED})*(?:#(?:[${UNRESERVED}${SUB_DELIMS}:/?@]|${PCT_ENCODED})*)?$`);
const statementRe = new RegExp(`^[${UNRESERVED}${SUB_DELIMS}${GEN_DELIMS} ]+$`);
const requestIdRe = new RegExp(`^(?:[${UNRESERVED}${SUB_DELIMS}:@]|${PCT_ENCODED})*$`);
const nonceRe = /^[A-Za-z0-9]{8,}$/;
const chainIdRe = /^[0-9]+$/;
const dateTimeRe = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/** `scheme` of RFC 3986 (the optional prefix before the domain, e.g. `https`). */
export function schemeProblem(value: string): string | undefined {
  return schemeRe.test(value) ? undefined : "must be a URI scheme (a letter, then letters, digits, +, - or .)";
}

/** `domain`: an RFC 3986 authority, `[userinfo@]host[:port]`. */
export function domainProblem(value: string): string | undefined {
  return authorityRe.test(value) ? undefined : "must be an RFC 3986 authority such as example.com or 127.0.0.1:8787";
}

/** `uri` and each resource: an RFC 3986 URI; when it has an authority (`scheme://`), that is checked too. */
export function uriProblem(value: string): string | undefined {
  if (!uriRe.test(value)) return "must be an RFC 3986 URI such as https://example.com/login";
  const hierPart = value.slice(value.indexOf(":") + 1);
  if (hierPart.startsWith("//")) {
    const authority = hierPart.slice(2).split(/[/?#]/, 1)[0]!;
    // An empty authority is allowed (file:///path); a present one must be well formed.
    if (authority !== "" && !authorityRe.test(authority)) return "has an invalid authority (host[:port])";
  }
  return undefined;
}

/** `statement`: one line of RFC 3986 reserved and unreserved characters and spaces. */
export function statementProblem(value: string): string | undefined {
  if (value === "") return "must not be empty (leave it out instead)";
  if (value.includes("\n")) return "must not contain a line break";
  return statementRe.test(value) ? undefined : "may only hold letters, digits, spaces and the characters -._~:/?#[]@!$&'()*+,;=";
}

/** `nonce`: at least 8 ASCII letters or digits. */
export function nonceProblem(value: string): string | undefined {
  return nonceRe.test(value) ? undefined : "must be at least 8 letters or digits";
}

/** `chain-id` as text: decimal digits of a safe integer. */
export function chainIdTextProblem(value: string): string | undefined {
  if (!chainIdRe.test(value)) return "must be a decimal number";
  return Number.isSafeInteger(Number(value)) ? undefined : "is too large";
}

/** `chain-id` as a number. */
export function chainIdProblem(value: number): string | undefined {
  return Number.isSafeInteger(value) && value >= 0 ? undefined : "must be a non-negative integer";
}

/** `request-id`: RFC 3986 pchar characters (may be empty). */
export function requestIdProblem(value: string): string | undefined {
  return requestIdRe.test(value) ? undefined : "may only hold RFC 3986 path characters (pchar)";
}

/** `issued-at`, `expiration-time`, `not-before`: an RFC 3339 date-time. */
export function dateTimeProblem(value: string): string | undefined {
  return dateTimeMs(value) === undefined ? "must be an RFC 3339 date-time such as 2026-01-31T12:00:00Z" : undefined;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/**
 * The instant an RFC 3339 date-time names, in milliseconds since the epoch (digits beyond the
 * millisecond are dropped; a leap second 60 counts as the next second), or `undefined` when the
 * text is not a valid RFC 3339 date-time.
 */
export function dateTimeMs(value: string): number | undefined {
  const m = dateTimeRe.exec(value);
  if (m === null) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 60) return undefined;
  let offsetMinutes = 0;
  if (m[8] === undefined) {
    const offsetHour = Number(m[10]);
    const offsetMinute = Number(m[11]);
    if (offsetHour > 23 || offsetMinute > 59) return undefined;
    offsetMinutes = (m[9] === "-" ? -1 : 1) * (offsetHour * 60 + offsetMinute);
  }
  const millis = m[7] === undefined ? 0 : Number((m[7].slice(1) + "00").slice(0, 3));
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, millis);
  return date.getTime() - offsetMinutes * 60_000;
}
