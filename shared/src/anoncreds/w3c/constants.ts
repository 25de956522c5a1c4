/** W3C VC 1.1 base context. */
export const W3C_VC_1_1_BASE_CONTEXT = 'https://www.w3.org/2018/credentials/v1'
/** W3C VC 2.0 base context. */
export const W3C_VC_2_0_BASE_CONTEXT = 'https://www.w3.org/ns/credentials/v2'
/** Data Integrity context (VC 1.1 only; part of the 2.0 base context). */
export const W3C_DATA_INTEGRITY_CONTEXT = 'https://w3id.org/security/data-integrity/v2'
/** The issuer-dependent vocabulary anoncreds-rs adds as the last context. */
export const ISSUER_DEPENDENT_VOCABULARY = { '@vocab': 'https://www.w3.org/ns/credentials/issuer-dependent#' }

/** W3C VC data model version: `'1.1'` (default, with `issuanceDate`) or `'2.0'`. */
export type W3cVersion = '1.1' | '2.0'

/** The `@context` anoncreds-rs writes for a version (`src/data_types/w3c/constants.rs`). */
export function anoncredsContexts(version: W3cVersion): (string | Record<string, string>)[] {
  return version === '2.0'
    ? [W3C_VC_2_0_BASE_CONTEXT, { ...ISSUER_DEPENDENT_VOCABULARY }]
    : [W3C_VC_1_1_BASE_CONTEXT, W3C_DATA_INTEGRITY_CONTEXT, { ...ISSUER_DEPENDENT_VOCABULARY }]
}

/** Parses the optional `w3cVersion` argument; anything other than 1.1 / 2.0 is an error. */
export function parseW3cVersion(version: string | undefined): W3cVersion {
  if (version === undefined || version === '' || version === '1.1') return '1.1'
  if (version === '2.0') return '2.0'
  throw new Error(`Unsupported W3C version: ${version}`)
}

/**
 * RFC 3339 timestamp with microseconds and `Z`, the form chrono writes for `Utc::now()`
 * (e.g. `2024-02-07T06:59:10.848067Z`); JavaScript has milliseconds, so the last three digits are 0.
 */
export function issuanceDateNow(now = new Date()): string {
  return now.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z')
}
