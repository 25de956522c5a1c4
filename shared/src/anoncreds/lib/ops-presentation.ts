import type { Credential } from '../objects/credential.ts'
import type { PresentationRequest } from '../objects/presentation-request.ts'
import type { Presentation } from '../objects/presentation.ts'
import type { W3cCredential, W3cPresentation } from '../objects/w3c-credential.ts'
import { createPresentation } from '../presentation/create.ts'
import { verifyPresentation } from '../presentation/verify.ts'
import { createW3cPresentation, verifyW3cPresentation } from '../presentation/w3c.ts'
import { parseW3cVersion } from '../w3c/constants.ts'
import { type EngineOps, ledgerFromLists, ledgerFromRecords } from './context.ts'

/**
 * The presentation part of the interface, legacy and W3C; the work lives in `presentation/`.
 * A `timestamp` or `revocationState` on a credential entry means revocation (not supported yet).
 */
export const presentationOps: EngineOps<'createPresentation' | 'verifyPresentation' | 'createW3cPresentation' | 'verifyW3cPresentation'> = (ctx) => ({
  createPresentation: (o) =>
    ctx.put(
      'Presentation',
      createPresentation({
        request: ctx.get<PresentationRequest>(o.presentationRequest, 'PresentationRequest'),
        credentials: o.credentials.map((c) => ({
          credential: ctx.get<Credential>(c.credential, 'Credential'),
          timestamp: c.timestamp ?? undefined,
          hasRevocationState: c.revocationState != null,
        })),
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
        credentials: o.credentials.map((c) => ({
          credential: ctx.get<W3cCredential>(c.credential, 'W3CCredential'),
          timestamp: c.timestamp ?? undefined,
          hasRevocationState: c.revocationState != null,
        })),
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
