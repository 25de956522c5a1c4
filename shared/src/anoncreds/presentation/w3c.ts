import { encodeAttributeValue, normalizeAttributeName } from '../encoding/index.ts'
import { revocationNotSupported } from '../lib/errors.ts'
import type { PresentationRequest } from '../objects/presentation-request.ts'
import { parseQuery } from '../objects/query.ts'
import { type W3cCredential, type W3cPresentation, anoncredsProofOf } from '../objects/w3c-credential.ts'
import { verifyProof } from '../proof/index.ts'
import { type W3cVersion, anoncredsContexts } from '../w3c/constants.ts'
import { credentialFromW3c, credentialSignatureOf } from '../w3c/credential-conversion.ts'
import {
  type CredentialPresentationProofValue,
  type PresentationProofValue,
  decodeProofValue,
  encodeProofValue,
} from '../w3c/proof-value.ts'
import { buildClProof, groupProve } from './create.ts'
import { PresentationInputError, PresentationRejectedError, checkRestriction, findAttribute, gatherFilter } from './restrictions.ts'
import { type CredentialEntry, type CredentialProve, type Ledger, clPredicateType } from './types.ts'

/**
 * anoncreds-rs `w3c::prover::create_presentation`: a W3C presentation of `request`. Each
 * credential proved from becomes a derived credential whose subject holds the revealed
 * attributes (and every attribute of `names` groups) and `true` for predicate attributes, with an
 * `assertionMethod` proof carrying its CL sub-proof; the presentation's `authentication` proof
 * carries the aggregated proof, `challenge` = the request nonce, verification method = the last
 * cred def id. Self-attested attributes do not exist in W3C presentations.
 */
export function createW3cPresentation(options: {
  request: PresentationRequest
  credentials: CredentialEntry<W3cCredential>[]
  prove: readonly CredentialProve[]
  linkSecret: string
  ledger: Ledger
  version: W3cVersion
}): W3cPresentation {
  const { request } = options
  const legacy = options.credentials.map((c) => ({ ...c, w3c: c.credential, credential: credentialFromW3c(c.credential) }))
  const entries = groupProve(request, legacy, options.prove)
  if (entries.length === 0) throw new PresentationInputError('No credential mapping')
  const proof = buildClProof(request, entries, options.linkSecret, options.ledger)
  let verificationMethod = ''
  const verifiableCredential = entries.map((entry, index) => {
    const w3c = legacy.find((l) => l.credential === entry.credential)!.w3c
    const subject: Record<string, string | number | boolean> = {}
    for (const { referent, reveal } of entry.attributes) {
      const info = request.requested_attributes[referent]!
      const names = info.name ? (reveal ? [info.name] : []) : (info.names ?? [])
      for (const name of names) {
        const found = findAttribute(w3c.credentialSubject, name)
        if (!found) throw new PresentationInputError(`Credential attribute ${name} not found`)
        subject[found[0]] = found[1]
      }
    }
    for (const referent of entry.predicates) {
      const found = findAttribute(w3c.credentialSubject, request.requested_predicates[referent]!.name)
      if (!found) throw new PresentationInputError(`Credential attribute ${request.requested_predicates[referent]!.name} not found`)
      const existing = subject[found[0]]
      if (existing !== undefined && existing !== true) throw new PresentationInputError('Predicate cannot be added for revealed attribute')
      subject[found[0]] = true
    }
    const signature = credentialSignatureOf(w3c)
    const value: CredentialPresentationProofValue = {
      schema_id: signature.schema_id,
      cred_def_id: signature.cred_def_id,
      ...(signature.rev_reg_id !== undefined ? { rev_reg_id: signature.rev_reg_id } : {}),
      ...(entry.timestamp !== undefined ? { timestamp: entry.timestamp } : {}),
      sub_proof: proof.proofs[index]!,
    }
    verificationMethod = signature.cred_def_id
    const derived: W3cCredential = {
      '@context': w3c['@context'],
      type: w3c.type,
      issuer: w3c.issuer,
      credentialSubject: subject,
      proof: {
        cryptosuite: 'anoncreds-2023',
        type: 'DataIntegrityProof',
        proofPurpose: 'assertionMethod',
        verificationMethod: signature.cred_def_id,
        proofValue: encodeProofValue({ kind: 'credentialPresentation', value }),
        challenge: undefined,
      },
      id: w3c.id,
      issuanceDate: w3c.issuanceDate,
      validFrom: w3c.validFrom,
    }
    return derived
  })
  return {
    '@context': anoncredsContexts(options.version),
    type: ['VerifiablePresentation'],
    verifiableCredential,
    proof: {
      cryptosuite: 'anoncreds-2023',
      type: 'DataIntegrityProof',
      proofPurpose: 'authentication',
      verificationMethod,
      proofValue: encodeProofValue({ kind: 'presentation', value: { aggregated: proof.aggregated_proof } }),
      challenge: request.nonce,
    },
  }
}

function presentationProofOf(credential: W3cCredential): CredentialPresentationProofValue {
  const proof = anoncredsProofOf(credential)
  if (proof?.proofPurpose !== 'assertionMethod') throw new PresentationRejectedError('credential has no assertionMethod anoncreds proof')
  const decoded = decodeProofValue(proof.proofValue)
  if (decoded.kind !== 'credentialPresentation')
    throw new PresentationRejectedError('DataIntegrityProof does not contain credential presentation proof')
  return decoded.value
}

function restrictionsHold(
  credential: W3cCredential,
  proof: CredentialPresentationProofValue,
  restrictions: unknown,
  ledger: Ledger,
): boolean {
  if (proof.timestamp !== undefined) revocationNotSupported()
  if (restrictions === null || restrictions === undefined) return true
  const filter = gatherFilter(proof.schema_id, proof.cred_def_id, ledger.schemas, ledger.credentialDefinitions)
  const values = new Map<string, string | null>()
  for (const [name, value] of Object.entries(credential.credentialSubject)) {
    if (typeof value !== 'boolean') values.set(name, String(value))
  }
  try {
    checkRestriction(values, parseQuery(restrictions), filter)
    return true
  } catch (error) {
    if (error instanceof PresentationRejectedError) return false
    throw error
  }
}

/**
 * The request checks of anoncreds-rs `w3c::verifier` (`check_request_data`): every requested
 * attribute is revealed by some credential whose proof reveals the same encoded value and whose
 * restrictions hold (or, for attributes not revealed, the credential's schema has it); every
 * requested predicate is proved by some credential; each credential's issuer equals its cred
 * def's issuer and its verification method equals its cred def id. In addition (stricter than
 * anoncreds-rs) every shown credentialSubject value must be revealed by the proof.
 */
function checkW3cRequestData(
  presentation: W3cPresentation,
  proofs: CredentialPresentationProofValue[],
  request: PresentationRequest,
  ledger: Ledger,
): void {
  const vcs = presentation.verifiableCredential
  // Stricter than anoncreds-rs: every value a derived credential shows must be the value its CL
  // proof reveals (anoncreds-rs falls back to treating a mismatching attribute as unrevealed, so
  // a changed credentialSubject value would still verify there).
  for (const [i, vc] of vcs.entries()) {
    const revealed = proofs[i]!.sub_proof.primary_proof.eq_proof.revealed_attrs
    for (const [name, value] of Object.entries(vc.credentialSubject)) {
      if (typeof value === 'boolean') continue
      const proven = Object.entries(revealed).find(([key]) => normalizeAttributeName(key) === normalizeAttributeName(name))
      if (!proven || proven[1] !== encodeAttributeValue(String(value))) {
        throw new PresentationRejectedError(`credentialSubject.${name} is not the value the proof reveals`)
      }
    }
  }
  const findRevealed = (name: string, restrictions: unknown): boolean => {
    for (const [i, vc] of vcs.entries()) {
      const found = findAttribute(vc.credentialSubject, name)
      if (!found || typeof found[1] === 'boolean') continue
      const proven = Object.entries(proofs[i]!.sub_proof.primary_proof.eq_proof.revealed_attrs).find(
        ([key]) => normalizeAttributeName(key) === normalizeAttributeName(found[0]),
      )
      if (!proven || proven[1] !== encodeAttributeValue(String(found[1]))) continue
      if (restrictionsHold(vc, proofs[i]!, restrictions, ledger)) return true
    }
    for (const [i, vc] of vcs.entries()) {
      const schema = ledger.schemas.get(proofs[i]!.schema_id)
      if (!schema) throw new PresentationInputError(`Credential schema not found ${proofs[i]!.schema_id}`)
      const has = schema.attrNames.some((a) => normalizeAttributeName(a) === normalizeAttributeName(name))
      if (has && restrictionsHold(vc, proofs[i]!, restrictions, ledger)) return true
    }
    return false
  }
  for (const info of Object.values(request.requested_attributes)) {
    for (const name of info.name ? [info.name] : (info.names ?? [])) {
      if (!findRevealed(name, info.restrictions)) throw new PresentationRejectedError(`Presentation does not contain attribute ${name}`)
    }
  }
  for (const info of Object.values(request.requested_predicates)) {
    const ok = vcs.some((vc, i) => {
      const found = findAttribute(vc.credentialSubject, info.name)
      if (found?.[1] !== true) return false
      const matches = proofs[i]!.sub_proof.primary_proof.ge_proofs.some(
        (ge) =>
          ge.predicate.attr_name === normalizeAttributeName(found[0]) &&
          ge.predicate.p_type === clPredicateType(info.p_type) &&
          ge.predicate.value === info.p_value,
      )
      return matches && restrictionsHold(vc, proofs[i]!, info.restrictions, ledger)
    })
    if (!ok) throw new PresentationRejectedError(`Presentation does not contain predicate ${info.name}`)
  }
  for (const [i, vc] of vcs.entries()) {
    const credDef = ledger.credentialDefinitions.get(proofs[i]!.cred_def_id)
    if (!credDef) throw new PresentationInputError('Missing credential definition')
    if (credDef.issuerId !== vc.issuer) throw new PresentationRejectedError('Inconsistent issuer ID')
    if (anoncredsProofOf(vc)!.verificationMethod !== proofs[i]!.cred_def_id) {
      throw new PresentationRejectedError('Inconsistent credential definition ID')
    }
  }
}

/**
 * anoncreds-rs `w3c::verifier::verify_presentation` without revocation: request checks, then
 * the CL proof (sub-proofs from the credentials, aggregated proof from the presentation's
 * `authentication` proof) with the request nonce. False when a check or the proof fails; throws
 * `PresentationInputError` when a schema or cred def the presentation uses was not supplied.
 */
export function verifyW3cPresentation(presentation: W3cPresentation, request: PresentationRequest, ledger: Ledger): boolean {
  let proofs: CredentialPresentationProofValue[]
  let aggregated: PresentationProofValue['aggregated']
  try {
    proofs = presentation.verifiableCredential.map(presentationProofOf)
    if (presentation.proof.proofPurpose !== 'authentication')
      throw new PresentationRejectedError('presentation proof purpose must be authentication')
    const decoded = decodeProofValue(presentation.proof.proofValue)
    if (decoded.kind !== 'presentation') throw new PresentationRejectedError('DataIntegrityProof does not contain presentation proof')
    aggregated = decoded.value.aggregated
    checkW3cRequestData(presentation, proofs, request, ledger)
  } catch (error) {
    if (error instanceof PresentationRejectedError) return false
    throw error
  }
  const subProofs = proofs.map((p) => {
    const credDef = ledger.credentialDefinitions.get(p.cred_def_id)
    if (!credDef) throw new PresentationInputError(`Credential Definition not provided for ID: ${p.cred_def_id}`)
    return {
      primary: credDef.value.primary,
      revealed: { ...p.sub_proof.primary_proof.eq_proof.revealed_attrs },
      predicates: p.sub_proof.primary_proof.ge_proofs.map((ge) => ge.predicate),
    }
  })
  return verifyProof({ proof: { proofs: proofs.map((p) => p.sub_proof), aggregated_proof: aggregated }, nonce: request.nonce, subProofs })
}
