/**
 * What one entry of an access list may be, by the list's declared `type`. Entries are sent as
 * written (never rewritten: the live content would then differ on every read), so they are
 * checked here, where a wrong one is a validation error at its line, and never reach a plan,
 * an audit log or a live list. This is also what keeps a file that is not a list (a
 * `.git/config`'s `[core]`) from passing as one.
 */
import { isIP } from 'node:net';
import { countries } from 'countries-list';
import { AccessListType } from '../../domain/enums.js';

/** `AS13335` or `13335`: ASNs are 32-bit (RFC 6793). */
const ASN = /^(?:AS)?(\d{1,10})$/i;
const MAX_ASN = 4_294_967_295;

/**
 * A JA4 TLS client fingerprint (FoxIO's JA4 spec): `a_b_c`, where `a` is the protocol
 * (t TCP, q QUIC, d DTLS), the TLS version (13 12 11 10, s3 s2, d1 d2 d3, or 00), SNI (d
 * domain, i IP), two-digit cipher and extension counts and the ALPN's first and last
 * alphanumeric characters (00 when none); `b` and `c` are 12 hex digits of truncated SHA-256.
 */
const JA4 = /^[tqd](?:1[0-3]|s[23]|d[1-3]|00)[di]\d{2}\d{2}[0-9a-zA-Z]{2}_[0-9a-f]{12}_[0-9a-f]{12}$/;

/** C0 and C1 control characters and DEL (tabs included: they are never part of a name). */
const CONTROL = /\p{Cc}/u;

function cidrProblem(entry: string): string | undefined {
  const slash = entry.indexOf('/');
  if (slash === -1)
    return 'is not a CIDR block (address/prefix, e.g. 203.0.113.0/24; one address is /32 or /128)';
  const version = isIP(entry.slice(0, slash));
  const prefix = entry.slice(slash + 1);
  if (version === 0) return 'is not a CIDR block: the part before "/" is not an IPv4 or IPv6 address';
  const max = version === 4 ? 32 : 128;
  if (!/^\d{1,3}$/.test(prefix) || Number(prefix) > max)
    return `is not a CIDR block: the prefix length must be 0-${max} for IPv${version}`;
  return undefined;
}

/**
 * Why `entry` (trimmed, non-empty) cannot be in a list of `type`, or undefined when it can.
 * An unknown type checks nothing: the enum is validated before this is asked.
 */
export function entryProblem(type: number, entry: string): string | undefined {
  switch (type) {
    case AccessListType.IP:
      return isIP(entry) === 0
        ? 'is not an IPv4 or IPv6 address (an IP list holds addresses; use a CIDR list for ranges)'
        : undefined;
    case AccessListType.CIDR:
      return cidrProblem(entry);
    case AccessListType.ASN: {
      const match = ASN.exec(entry);
      return match === null || Number(match[1]) > MAX_ASN
        ? 'is not an ASN (AS13335 or 13335, at most 4294967295)'
        : undefined;
    }
    case AccessListType.Country:
      return Object.hasOwn(countries, entry.toUpperCase())
        ? undefined
        : 'is not an ISO 3166-1 alpha-2 country code (e.g. DE, US, GB)';
    case AccessListType.Organization:
      return CONTROL.test(entry) ? 'contains a control character' : undefined;
    case AccessListType.JA4:
      return JA4.test(entry)
        ? undefined
        : 'is not a JA4 fingerprint (like t13d1516h2_8daaf6152771_b186095e22b6)';
    default:
      return undefined;
  }
}
