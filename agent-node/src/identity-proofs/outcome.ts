/**
 * Presentation requests on the wire and their outcome (Aries present-proof v2, AnonCreds format):
 * - `anonCredsProofRequest`: one attribute group per requested credential, each restricted to its
 *   credential definition, so every entry is requested (not only the first);
 * - `presentationOutcome`: what a proof exchange's state means for the controller, with the
 *   revealed claims of each requested credential when the presentation verified.
 *
 * Statuses (the callback's `status`, the submitted item's `errorCode`), in order:
 * `scanned` (the wallet opened the short URL or sent its connection request), `connected` (the
 * connection completed), then one final status: `ok` (presentation verified; `claims` present),
 * `refused` (the user declined or the wallet could not present: a problem report, `reason` gives
 * its text), `no-compatible-credentials` (the wallet's problem report says it holds no matching
 * credential), `verification-error` (a presentation arrived and did not verify; `reason`) or
 * `unspecified-error` (the exchange was abandoned without a report).
 * Requested predicates (`age >= 18`) are part of the proof request; `ok` means each was proven,
 * and the outcome lists them.
 * The names follow 2060.io's service agent.
 */
import { DidCommProofState, type DidCommProofExchangeRecord } from '@credo-ts/didcomm'
import type { Claim, Predicate } from '@parley/shared'
import { ForwardOnly } from '@parley/shared/forward-only'
import { z } from 'zod'
import type { DidcommAgent } from '../didcomm/agent.ts'
import type { RequestedCredential } from './PresentationFlowRecord.ts'

export const PresentationStatus = z.enum([
  'scanned',
  'connected',
  'ok',
  'refused',
  'no-compatible-credentials',
  'verification-error',
  'unspecified-error',
])
export type PresentationStatus = z.infer<typeof PresentationStatus>

/** How far along each status is; a flow never reports a status at or below the current one. */
export const STATUS_ORDER = new ForwardOnly<PresentationStatus>([
  ['scanned'],
  ['connected'],
  ['ok', 'refused', 'no-compatible-credentials', 'verification-error', 'unspecified-error'],
])

/** The final statuses of a failed exchange. */
type FailedStatus = Exclude<PresentationStatus, 'scanned' | 'connected' | 'ok'>

/**
 * The final outcome of a proof exchange: verified, with the revealed claims and the proven
 * predicates per requested credential id, or failed.
 */
export type PresentationOutcome =
  | { status: 'ok'; claims: Map<string, Claim[]>; predicates: Map<string, Predicate[]> }
  | { status: FailedStatus; reason: string }

/** The attribute-group referent of requested credential number `index`. */
const referent = (index: number) => `credential-${index}`
/** The referent of predicate `predicate` of requested credential number `index`. */
const predicateReferent = (index: number, predicate: number) => `credential-${index}-predicate-${predicate}`

/**
 * The AnonCreds proof request asking for every entry of `requested`: one attribute group per
 * entry that reveals attributes, one `requested_predicates` entry per predicate, all restricted
 * to the entry's credential definition.
 */
export function anonCredsProofRequest(requested: readonly Omit<RequestedCredential, 'id'>[]) {
  const restrictions = (entry: Omit<RequestedCredential, 'id'>) => [{ cred_def_id: entry.credentialDefinitionId }]
  return {
    name: 'presentation request',
    version: '1.0',
    requested_attributes: Object.fromEntries(
      requested.flatMap((entry, index) =>
        entry.attributes.length > 0 ? [[referent(index), { names: entry.attributes, restrictions: restrictions(entry) }]] : [],
      ),
    ),
    requested_predicates: Object.fromEntries(
      requested.flatMap((entry, index) =>
        (entry.predicates ?? []).map((predicate, p) => [
          predicateReferent(index, p),
          { name: predicate.name, p_type: predicate.type, p_value: predicate.value, restrictions: restrictions(entry) },
        ]),
      ),
    ),
  }
}

/**
 * Why an abandoned exchange failed, as vs-agent distinguishes it: a presentation that did not
 * verify; the wallet's `e.req.no-compatible-credentials` problem report; any other problem report
 * from the user's side (a refusal); no report at all (`unspecified-error`).
 */
function failedStatus(record: DidCommProofExchangeRecord): FailedStatus {
  if (record.isVerified === false) return 'verification-error'
  if (!record.errorMessage) return 'unspecified-error'
  return record.errorMessage.includes('no-compatible-credentials') ? 'no-compatible-credentials' : 'refused'
}

type AnonCredsProof = {
  requested_proof: {
    revealed_attr_groups?: Record<string, { values: Record<string, { raw: string }> }>
    predicates?: Record<string, { sub_proof_index: number }>
  }
}

/**
 * The outcome of `record` (a verifier-side exchange), or undefined while it is still under way.
 * A presentation counts once Credo verified it (`presentation-received`); `abandoned` is a
 * verification error when a presentation failed verification, otherwise the user's refusal.
 */
export async function presentationOutcome(
  agent: DidcommAgent,
  record: DidCommProofExchangeRecord,
  requested: readonly RequestedCredential[],
): Promise<PresentationOutcome | undefined> {
  if (record.state === DidCommProofState.Abandoned)
    return { status: failedStatus(record), reason: record.errorMessage ?? 'the exchange was abandoned' }
  if (record.state !== DidCommProofState.PresentationReceived || record.isVerified !== true) return undefined
  const data = await agent.modules.didcomm.proofs.getFormatData(record.id)
  const proof = (data.presentation?.anoncreds as AnonCredsProof | undefined)?.requested_proof
  const groups = proof?.revealed_attr_groups ?? {}
  const proven = proof?.predicates ?? {}
  // Credo verified the presentation against the request, predicates included; checked again
  // here so `ok` is never reported for a predicate the presentation does not carry.
  const unproven = requested.flatMap((entry, index) => (entry.predicates ?? []).filter((_, p) => !proven[predicateReferent(index, p)]))
  if (unproven.length > 0)
    return {
      status: 'verification-error',
      reason: `predicates not proven: ${unproven.map((p) => `${p.name} ${p.type} ${p.value}`).join(', ')}`,
    }
  const claims = new Map<string, Claim[]>(
    requested.map((entry, index) => [
      entry.id,
      entry.attributes.map((name) => ({ name, value: groups[referent(index)]?.values[name]?.raw ?? '' })),
    ]),
  )
  const predicates = new Map<string, Predicate[]>(requested.map((entry) => [entry.id, entry.predicates ?? []]))
  return { status: 'ok', claims, predicates }
}
