import { encodeAttributeValue, normalizeAttributeName } from '../encoding/index.ts'
import { revocationNotSupported } from '../lib/errors.ts'
import type { PresentationRequest } from '../objects/presentation-request.ts'
import type { Presentation, PresentationIdentifier } from '../objects/presentation.ts'
import { type Query, parseQuery } from '../objects/query.ts'
import { type VerifierSubProof, verifyProof } from '../proof/index.ts'
import {
  PresentationInputError,
  PresentationRejectedError,
  checkRestriction,
  checkRestrictionTagConflicts,
  gatherFilter,
} from './restrictions.ts'
import { type Ledger, clPredicateType } from './types.ts'

function identifierAt(presentation: Presentation, index: number): PresentationIdentifier {
  const identifier = presentation.identifiers[index]
  if (!identifier) throw new PresentationRejectedError(`Identifier not found for index: ${index}`)
  return identifier
}

function sameSet(a: Iterable<string>, b: Iterable<string>): boolean {
  const sa = new Set(a)
  const sb = new Set(b)
  return sa.size === sb.size && [...sa].every((x) => sb.has(x))
}

/** anoncreds-rs `normalize_encoded_attr`: a value that parses as i32 is written canonically. */
function normalizeEncoded(encoded: string): string {
  if (/^[+-]?[0-9]+$/.test(encoded)) {
    const n = Number(encoded)
    if (Number.isInteger(n) && n >= -2147483648 && n <= 2147483647) return String(n)
  }
  return encoded
}

/** The encoded value the CL proof reveals for `name` (compared by common view); throws when absent. */
function provenValue(presentation: Presentation, subProofIndex: number, name: string): string {
  const subProof = presentation.proof.proofs[subProofIndex]
  if (!subProof) throw new PresentationRejectedError(`CryptoProof not found by index "${subProofIndex}"`)
  const wanted = normalizeAttributeName(name)
  for (const [key, value] of Object.entries(subProof.primary_proof.eq_proof.revealed_attrs)) {
    if (normalizeAttributeName(key) === wanted) return value
  }
  throw new PresentationRejectedError(`Attribute with name "${name}" not found in CryptoProof`)
}

/**
 * A revealed value: its encoded form equals the one the CL proof proves, and its raw form encodes
 * to it (anoncreds-rs leaves the second check to its caller; a verifier that reads `raw` without
 * it could be shown any raw value). Raw values encode as `encodeAttributeValue` does.
 */
function checkRevealedValue(
  presentation: Presentation,
  subProofIndex: number,
  name: string,
  value: { raw: string; encoded: string },
): void {
  const proven = provenValue(presentation, subProofIndex, name)
  const encoded = normalizeEncoded(value.encoded)
  if (encoded !== proven) {
    throw new PresentationRejectedError(
      `Encoded Values for "${name}" are different in RequestedProof "${value.encoded}" and CryptoProof "${proven}"`,
    )
  }
  if (encodeAttributeValue(value.raw) !== encoded) {
    throw new PresentationRejectedError(`Raw value for "${name}" does not encode to its encoded value "${value.encoded}"`)
  }
}

/**
 * The request-level checks of anoncreds-rs `verifier::verify_presentation` before the CL proof:
 * referents received = referents requested (attributes incl. self-attested, predicates); revealed
 * encoded values equal the proof's, and (beyond anoncreds-rs) their raw values encode to them; restrictions hold for each credential used. Throws
 * `PresentationRejectedError` when a check fails, `PresentationInputError` when a schema or
 * cred def the presentation names was not supplied.
 */
export function checkPresentationAgainstRequest(presentation: Presentation, request: PresentationRequest, ledger: Ledger): void {
  const rp = presentation.requested_proof
  const groups = rp.revealed_attr_groups ?? {}
  const attrIds = new Map<string, PresentationIdentifier>()
  for (const [ref, info] of Object.entries(rp.revealed_attrs)) attrIds.set(ref, identifierAt(presentation, info.sub_proof_index))
  for (const [ref, info] of Object.entries(groups)) attrIds.set(ref, identifierAt(presentation, info.sub_proof_index))
  for (const [ref, info] of Object.entries(rp.unrevealed_attrs)) attrIds.set(ref, identifierAt(presentation, info.sub_proof_index))
  const predicateIds = new Map<string, PresentationIdentifier>()
  for (const [ref, info] of Object.entries(rp.predicates)) predicateIds.set(ref, identifierAt(presentation, info.sub_proof_index))

  const received = new Set([...attrIds.keys(), ...Object.keys(rp.self_attested_attrs)])
  if (!sameSet(Object.keys(request.requested_attributes), received)) {
    throw new PresentationRejectedError('Requested attributes do not correspond to received')
  }
  if (!sameSet(Object.keys(request.requested_predicates), predicateIds.keys())) {
    throw new PresentationRejectedError('Requested predicates do not correspond to received')
  }

  // revealed values
  for (const [ref, info] of Object.entries(rp.revealed_attrs)) {
    const name = request.requested_attributes[ref]?.name
    if (!name) throw new PresentationRejectedError(`Attribute with referent "${ref}" not found in ProofRequests`)
    checkRevealedValue(presentation, info.sub_proof_index, name, info)
  }
  for (const [ref, info] of Object.entries(groups)) {
    const names = request.requested_attributes[ref]?.names
    if (!names) throw new PresentationRejectedError(`Attribute with referent "${ref}" not found in ProofRequests`)
    if (Object.keys(info.values).length !== names.length) {
      throw new PresentationRejectedError('Proof Revealed Attr Group does not match Proof Request Attribute Group')
    }
    for (const name of names) {
      const value = info.values[name]
      if (!value) throw new PresentationRejectedError('Proof Revealed Attr Group does not match Proof Request Attribute Group')
      checkRevealedValue(presentation, info.sub_proof_index, name, value)
    }
  }

  // restrictions
  const queries: Query[] = []
  for (const info of [...Object.values(request.requested_attributes), ...Object.values(request.requested_predicates)]) {
    if (info.restrictions !== null) queries.push(parseQuery(info.restrictions))
  }
  checkRestrictionTagConflicts(queries)
  for (const [ref, info] of Object.entries(request.requested_attributes)) {
    if (info.restrictions === null) continue
    const query = parseQuery(info.restrictions)
    const isEmptyList = (query.op === 'and' || query.op === 'or') && query.operators.length === 0
    if (isEmptyList && ref in rp.self_attested_attrs) continue
    const identifier = attrIds.get(ref)
    if (!identifier) throw new PresentationRejectedError(`Identifier not found for referent: ${ref}`)
    const filter = gatherFilter(identifier.schema_id, identifier.cred_def_id, ledger.schemas, ledger.credentialDefinitions)
    const values = new Map<string, string | null>()
    if (info.name) values.set(info.name, rp.revealed_attrs[ref]?.raw ?? null)
    else {
      const group = groups[ref]
      if (!group) throw new PresentationRejectedError('Proof does not have referent from proof request')
      for (const name of info.names ?? []) values.set(name, group.values[name]?.raw ?? null)
    }
    checkRestriction(values, query, filter)
  }
  for (const [ref, info] of Object.entries(request.requested_predicates)) {
    if (info.restrictions === null) continue
    const identifier = predicateIds.get(ref)!
    const filter = gatherFilter(identifier.schema_id, identifier.cred_def_id, ledger.schemas, ledger.credentialDefinitions)
    const index = rp.predicates[ref]!.sub_proof_index
    const values = new Map<string, string | null>([[info.name, null]])
    for (const [attrRef, attr] of Object.entries(rp.revealed_attrs)) {
      const name = request.requested_attributes[attrRef]?.name
      if (attr.sub_proof_index === index && name) values.set(name, attr.raw)
    }
    for (const group of Object.values(groups)) {
      if (group.sub_proof_index !== index) continue
      for (const [name, value] of Object.entries(group.values)) values.set(name, value.raw)
    }
    checkRestriction(values, parseQuery(info.restrictions), filter)
  }
}

/** What the CL verifier expects of each sub-proof, from the request and `requested_proof`. */
function expectedSubProofs(presentation: Presentation, request: PresentationRequest, ledger: Ledger): VerifierSubProof[] {
  const rp = presentation.requested_proof
  return presentation.identifiers.map((identifier, index) => {
    if (identifier.timestamp !== null) revocationNotSupported()
    const credDef = ledger.credentialDefinitions.get(identifier.cred_def_id)
    if (!credDef) throw new PresentationInputError(`Credential Definition not provided for ID: ${identifier.cred_def_id}`)
    if (!ledger.schemas.has(identifier.schema_id)) throw new PresentationInputError(`Schema not provided for ID: ${identifier.schema_id}`)
    const revealed: Record<string, string> = {}
    for (const [ref, info] of Object.entries(rp.revealed_attrs)) {
      if (info.sub_proof_index !== index) continue
      revealed[normalizeAttributeName(request.requested_attributes[ref]!.name!)] = normalizeEncoded(info.encoded)
    }
    for (const info of Object.values(rp.revealed_attr_groups ?? {})) {
      if (info.sub_proof_index !== index) continue
      for (const [name, value] of Object.entries(info.values)) revealed[normalizeAttributeName(name)] = normalizeEncoded(value.encoded)
    }
    const predicates = Object.entries(rp.predicates)
      .filter(([, info]) => info.sub_proof_index === index)
      .map(([ref]) => {
        const info = request.requested_predicates[ref]!
        return { attr_name: normalizeAttributeName(info.name), p_type: clPredicateType(info.p_type), value: info.p_value }
      })
    return { primary: credDef.value.primary, revealed, predicates }
  })
}

/**
 * anoncreds-rs `verifier::verify_presentation` without revocation: the request checks, then the
 * CL proof with the request's nonce. Returns false when a check or the proof fails; throws
 * `PresentationInputError` when the caller did not supply a schema or cred def the presentation uses.
 */
export function verifyPresentation(presentation: Presentation, request: PresentationRequest, ledger: Ledger): boolean {
  try {
    checkPresentationAgainstRequest(presentation, request, ledger)
  } catch (error) {
    if (error instanceof PresentationRejectedError) return false
    throw error
  }
  const subProofs = expectedSubProofs(presentation, request, ledger)
  if (presentation.proof.proofs.length !== subProofs.length) return false
  return verifyProof({ proof: presentation.proof, nonce: request.nonce, subProofs })
}
