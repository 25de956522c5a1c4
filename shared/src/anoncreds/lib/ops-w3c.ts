import type { Credential } from '../objects/credential.ts'
import type { W3cCredential } from '../objects/w3c-credential.ts'
import { parseW3cVersion } from '../w3c/constants.ts'
import {
  buildW3cCredential,
  credentialFromW3c,
  credentialSignatureOf,
  credentialToW3c,
  rawToSubjectValue,
  withCredentialSignature,
} from '../w3c/credential-conversion.ts'
import { type CredentialProofInfo, credentialProofDetails } from '../w3c/proof-details.ts'
import type { EngineOps } from './context.ts'
import { inputError } from './errors.ts'
import { issueSignature, processSignature } from './issue.ts'

/**
 * The W3C credential part of the interface: issuing and processing W3C credentials, converting
 * to and from legacy credentials, and the proof details Credo reads (`schema_id`, `cred_def_id`,
 * `rev_reg_id`, `rev_reg_index`, `timestamp`; absent values `null`).
 */
export const w3cOps: EngineOps<
  | 'createW3cCredential'
  | 'processW3cCredential'
  | 'credentialToW3c'
  | 'credentialFromW3c'
  | 'w3cCredentialGetIntegrityProofDetails'
  | 'w3cCredentialProofGetAttribute'
> = (ctx) => ({
  createW3cCredential: (o) => {
    const version = parseW3cVersion(o.w3cVersion)
    const { credDef, offer, values, signed } = issueSignature(ctx, o)
    const subject: Record<string, string | number> = {}
    for (const [name, value] of Object.entries(values)) subject[name] = rawToSubjectValue(value.raw)
    const signature = {
      schema_id: offer.schema_id,
      cred_def_id: offer.cred_def_id,
      signature: { p_credential: signed.p_credential, r_credential: null },
      signature_correctness_proof: signed.signature_correctness_proof,
    }
    return ctx.put('W3CCredential', buildW3cCredential(credDef.issuerId, subject, signature, version))
  },

  processW3cCredential: (o) => {
    const w3c = ctx.get<W3cCredential>(o.credential, 'W3CCredential')
    const signature = credentialSignatureOf(w3c)
    const legacy = credentialFromW3c(w3c)
    const pCredential = processSignature(ctx, signature.signature.p_credential, signature.signature_correctness_proof, legacy.values, o)
    return ctx.put(
      'W3CCredential',
      withCredentialSignature(w3c, { ...signature, signature: { p_credential: pCredential, r_credential: null } }),
    )
  },

  credentialToW3c: (o) =>
    ctx.put('W3CCredential', credentialToW3c(ctx.get<Credential>(o.objectHandle, 'Credential'), o.issuerId, parseW3cVersion(o.w3cVersion))),

  credentialFromW3c: (o) => ctx.put('Credential', credentialFromW3c(ctx.get<W3cCredential>(o.objectHandle, 'W3CCredential'))),

  w3cCredentialGetIntegrityProofDetails: (o) =>
    ctx.put('CredentialProofInfo', credentialProofDetails(ctx.get<W3cCredential>(o.objectHandle, 'W3CCredential'))),

  w3cCredentialProofGetAttribute: (o) => {
    const info = ctx.get<CredentialProofInfo>(o.objectHandle, 'CredentialProofInfo')
    switch (o.name) {
      case 'schema_id':
      case 'cred_def_id':
        return info[o.name]
      case 'rev_reg_id':
        return info.rev_reg_id as string
      case 'rev_reg_index':
      case 'timestamp':
        return (info[o.name] === null ? null : String(info[o.name])) as string
      default:
        return inputError(`Unsupported attribute: ${o.name}`)
    }
  },
})
