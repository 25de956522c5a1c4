import type { NativeCredentialEntry } from '@hyperledger/anoncreds-shared'
import type { Credential } from '../objects/credential.ts'
import type { PresentationRequest } from '../objects/presentation-request.ts'
import type { Presentation } from '../objects/presentation.ts'
import type { W3cCredential, W3cPresentation } from '../objects/w3c-credential.ts'
import { createPresentation } from '../presentation/create.ts'
import { verifyPresentation } from '../presentation/verify.ts'
import { createW3cPresentation, verifyW3cPresentation } from '../presentation/w3c.ts'
import { parseW3cVersion } from '../w3c/constants.ts'
import type { CredentialEntry } from '../presentation/types.ts'
import { type EngineContext, type EngineOps, ledgerFromLists, ledgerFromRecords } from './context.ts'

/** The credential entries of a create call, resolved from their handles. */
function credentialEntries<C>(
  ctx: EngineContext,
  entries: NativeCredentialEntry[],
  typeName: 'Credential' | 'W3CCredential',
): CredentialEntry<C>[] {
  return entries.map((c) => ({
    credential: ctx.get<C>(c.credential, typeName),
    timestamp: c.timestamp ?? undefined,
    hasRevocationState: c.revocationState != null,
  }))
}

/**
 * The presentation part of the interface, legacy and W3C; the work lives in `presentation/`.
 * A `timestamp` or `revocationState` on a credential entry means revocation (not supported yet).
 */
export const presentationOps: EngineOps<'createPresentation' | 'verifyPresentation' | 'createW3cPresentation' | 'verifyW3cPresentation'> = (
  ctx,
) => ({
  createPresentation: (o) =>
    ctx.put(
      'Presentation',
      createPresentation({
        request: ctx.get<PresentationRequest>(o.presentationRequest, 'PresentationRequest'),
        credentials: credentialEntries<Credential>(ctx, o.credentials, 'Credential'),
        prove: o.credentialsProve,
        selfAttest: o.selfAttest,
        linkSecret: o.linkSecret,
        ledger: ledgerFromRecords(ctx, o.schemas, o.credentialDefinitions),
      }),
    ),

  verifyPresentation: (o) =>
    verifyPresentation(
      ctx.get<Presentation>(o.presentation, 'Presentation'),
      ctx.get<PresentationRequest>(o.presentationRequest, 'PresentationRequest'),
      ledgerFromLists(ctx, o),
    ),

  createW3cPresentation: (o) =>
    ctx.put(
      'W3CPresentation',
      createW3cPresentation({
        request: ctx.get<PresentationRequest>(o.presentationRequest, 'PresentationRequest'),
        credentials: credentialEntries<W3cCredential>(ctx, o.credentials, 'W3CCredential'),
        prove: o.credentialsProve,
        linkSecret: o.linkSecret,
        ledger: ledgerFromRecords(ctx, o.schemas, o.credentialDefinitions),
        version: parseW3cVersion(o.w3cVersion),
      }),
    ),

  verifyW3cPresentation: (o) =>
    verifyW3cPresentation(
      ctx.get<W3cPresentation>(o.presentation, 'W3CPresentation'),
      ctx.get<PresentationRequest>(o.presentationRequest, 'PresentationRequest'),
      ledgerFromLists(ctx, o),
    ),
})
