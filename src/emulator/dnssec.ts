/**
 * DNSSEC key material for a zone, derived from its id and domain so it is the same on every
 * call and every run: the real `POST /dnszone/{id}/dnssec` returns the existing key on an
 * already-signed zone (Terraform uses it as a read), so it must never rotate.
 */
import { createHash } from 'node:crypto';
import { sha256Hex } from '../domain/checksum.js';
import type { DnsSecDsRecordModel, DnsZoneModel } from './wire.js';

/** ECDSA P-256 with SHA-256, as bunny.net signs zones (Terraform's acceptance test expects 13). */
const ALGORITHM = 13;
/** A key-signing key (the DS record points at the KSK). */
const FLAGS = 257;
/** The exact string Terraform parses; anything else makes it panic (docs/api-notes.md, DNS zones and DNSSEC). */
const DIGEST_TYPE = 'SHA256 (2)';

/** The status object for an enabled zone. */
export function dnssecEnabledStatus(zone: DnsZoneModel, dsConfigured: boolean): DnsSecDsRecordModel {
  const material = createHash('sha512').update(`dnssec:${zone.Id}:${zone.Domain}`).digest();
  const publicKey = material.subarray(0, 64).toString('base64');
  const keyTag = material.readUInt16BE(0);
  const digest = sha256Hex(material).toUpperCase();
  return {
    Enabled: true,
    DsRecord: `${zone.Domain}. 3600 IN DS ${keyTag} ${ALGORITHM} 2 ${digest}`,
    Digest: digest,
    DigestType: DIGEST_TYPE,
    Algorithm: ALGORITHM,
    PublicKey: publicKey,
    KeyTag: keyTag,
    Flags: FLAGS,
    DsConfigured: dsConfigured,
  };
}

/** The status object for a zone without DNSSEC: `Enabled: false`, no key material. */
export function dnssecDisabledStatus(): DnsSecDsRecordModel {
  return {
    Enabled: false,
    DsRecord: null,
    Digest: null,
    DigestType: null,
    Algorithm: 0,
    PublicKey: null,
    KeyTag: 0,
    Flags: 0,
    DsConfigured: false,
  };
}
