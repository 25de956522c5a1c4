import { encodeAttributeValue, normalizeAttributeName } from '../encoding/index.ts'
import { revocationNotSupported } from '../lib/errors.ts'
import type { ClProof } from '../objects/cl.ts'
import type { AttributeValues, Credential } from '../objects/credential.ts'
import type { PresentationRequest } from '../objects/presentation-request.ts'
import type { Presentation, RequestedProof } from '../objects/presentation.ts'
import { createProof } from '../proof/index.ts'
import type { Predicate, ProverSubProof } from '../proof/index.ts'
import { PresentationInputError, findAttribute } from './restrictions.ts'
import { type CredentialEntry, type CredentialProve, type Ledger, clPredicateType } from './types.ts'

/** One credential to present from, with what the caller asked to prove of it. */
export type PresentEntry = CredentialEntry<Credential> & {
  attributes: { referent: string; reveal: boolean }[]
  predicates: string[]
}

/**
 * Groups `credentialsProve` by credential entry (anoncreds-rs `PresentCredentials`), keeping
 * entry order and dropping entries nothing is proved from. Throws `PresentationInputError` on an
 * index out of range or a referent the request does not have.
 */
export function groupProve(
  request: PresentationRequest,
  credentials: CredentialEntry<Credential>[],
  prove: readonly CredentialProve[],
): PresentEntry[] {
  const entries: PresentEntry[] = credentials.map((c) => ({ ...c, attributes: [], predicates: [] }))
  for (const p of prove) {
    const entry = entries[p.entryIndex]
    if (!entry) throw new PresentationInputError(`Invalid credential entry index: ${p.entryIndex}`)
    if (p.isPredicate) {
      if (!request.requested_predicates[p.referent]) throw new PresentationInputError(`Predicate ${p.referent} not found in ProofRequest`)
      entry.predicates.push(p.referent)
    } else {
      if (!request.requested_attributes[p.referent]) throw new PresentationInputError(`Attribute ${p.referent} not found in ProofRequest`)
      entry.attributes.push({ referent: p.referent, reveal: p.reveal })
    }
  }
  return entries.filter((e) => e.attributes.length > 0 || e.predicates.length > 0)
}

function credentialValue(credential: Credential, name: string): AttributeValues {
  const found = findAttribute(credential.values, name)
  if (!found) throw new PresentationInputError(`Credential value not found for attribute "${name}"`)
  return found[1]
}

/** The CL sub-proof request of one entry: revealed names (normalised) and predicates. */
export function subProofRequest(request: PresentationRequest, entry: PresentEntry): { revealed: string[]; predicates: Predicate[] } {
  const revealed: string[] = []
  for (const { referent, reveal } of entry.attributes) {
    if (!reveal) continue
    const info = request.requested_attributes[referent]!
    for (const name of info.name ? [info.name] : (info.names ?? [])) revealed.push(normalizeAttributeName(name))
  }
  const predicates = entry.predicates.map((referent) => {
    const info = request.requested_predicates[referent]!
    return { attr_name: normalizeAttributeName(info.name), p_type: clPredicateType(info.p_type), value: info.p_value }
  })
  return { revealed: [...new Set(revealed)], predicates }
}

/** Encoded values of a credential keyed by normalised attribute name (what the CL layer signs). */
export function encodedValues(credential: Credential): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(credential.values)) out[normalizeAttributeName(name)] = value.encoded
  return out
}

/**
 * Builds the CL proof over the entries (anoncreds-rs `CLProofBuilder`): each credential's cred
 * def and schema must have been supplied. Revocation is not supported yet.
 */
export function buildClProof(request: PresentationRequest, entries: PresentEntry[], linkSecret: string, ledger: Ledger): ClProof {
  const subProofs: ProverSubProof[] = entries.map((entry) => {
    const { credential } = entry
    if (entry.hasRevocationState || entry.timestamp !== undefined) revocationNotSupported()
    if (!ledger.schemas.has(credential.schema_id)) throw new PresentationInputError(`Schema not provided for ID: ${credential.schema_id}`)
    const credDef = ledger.credentialDefinitions.get(credential.cred_def_id)
    if (!credDef) throw new PresentationInputError(`Credential Definition not provided for ID: ${credential.cred_def_id}`)
    const { revealed, predicates } = subProofRequest(request, entry)
    for (const p of predicates) credentialValue(credential, p.attr_name)
    return {
      primary: credDef.value.primary,
      p_credential: credential.signature.p_credential,
      encodedValues: encodedValues(credential),
      revealed,
      predicates,
    }
  })
  return createProof({ nonce: request.nonce, linkSecret, subProofs }) as ClProof
}

/**
 * anoncreds-rs `prover::create_presentation`: the legacy presentation of `request` from the
 * credentials, the CL proof, `requested_proof` (revealed values and groups, unrevealed referents,
 * self-attested values, predicates) and one identifier per credential proved from.
 * Throws `PresentationInputError` for inconsistent inputs.
 */
export function createPresentation(options: {
  request: PresentationRequest
  credentials: CredentialEntry<Credential>[]
  prove: readonly CredentialProve[]
  selfAttest: Record<string, string>
  linkSecret: string
  ledger: Ledger
}): Presentation {
  const { request } = options
  const entries = groupProve(request, options.credentials, options.prove)
  if (entries.length === 0 && Object.keys(options.selfAttest).length === 0) {
    throw new PresentationInputError('No credential mapping or self-attested attributes presented')
  }
  const requested: RequestedProof = {
    revealed_attrs: {},
    revealed_attr_groups: {},
    self_attested_attrs: { ...options.selfAttest },
    unrevealed_attrs: {},
    predicates: {},
  }
  const groups: NonNullable<RequestedProof['revealed_attr_groups']> = {}
  entries.forEach((entry, index) => {
    for (const { referent, reveal } of entry.attributes) {
      const info = request.requested_attributes[referent]!
      if (!reveal) {
        requested.unrevealed_attrs[referent] = { sub_proof_index: index }
      } else if (info.name) {
        const value = credentialValue(entry.credential, info.name)
        requested.revealed_attrs[referent] = { sub_proof_index: index, raw: value.raw, encoded: value.encoded }
      } else {
        const values: Record<string, { raw: string; encoded: string }> = {}
        for (const name of info.names ?? []) {
          const value = credentialValue(entry.credential, name)
          values[name] = { raw: value.raw, encoded: value.encoded }
        }
        groups[referent] = { sub_proof_index: index, values }
      }
    }
    for (const referent of entry.predicates) requested.predicates[referent] = { sub_proof_index: index }
  })
  requested.revealed_attr_groups = Object.keys(groups).length > 0 ? groups : undefined
  const proof = buildClProof(request, entries, options.linkSecret, options.ledger)
  return {
    proof,
    requested_proof: requested,
    identifiers: entries.map((entry) => ({
      schema_id: entry.credential.schema_id,
      cred_def_id: entry.credential.cred_def_id,
      rev_reg_id: entry.credential.rev_reg_id,
      timestamp: entry.timestamp ?? null,
    })),
  }
}

/** Encodes a raw value the way credentials encode it (re-exported for W3C presentations). */
export const encodeRaw = encodeAttributeValue
