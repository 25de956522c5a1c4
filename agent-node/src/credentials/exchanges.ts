/**
 * Credential exchanges as the admin API lists them (vs-agent's credential exchange data, read
 * from Credo's records): the definition, the offered claims and where the exchange stands.
 */
import type { DidCommCredentialExchangeRecord } from '@credo-ts/didcomm'
import type { Claim } from '@parley/shared'
import type { DidcommAgent } from '../didcomm/agent.ts'
import { found } from '../errors/index.ts'

/** One credential exchange; `credentialDefinitionId` and `claims` once an offer or proposal names them. */
export interface CredentialExchangeView {
  credentialExchangeId: string
  connectionId: string | null
  role: string
  state: string
  threadId: string
  credentialDefinitionId: string | null
  claims: Claim[]
  errorMessage: string | null
  createdAt: string
  updatedAt: string
}

/** The view of `record` (any role, any state). */
export async function credentialExchangeView(
  agent: DidcommAgent,
  record: DidCommCredentialExchangeRecord,
): Promise<CredentialExchangeView> {
  const data = await agent.modules.didcomm.credentials.getFormatData(record.id)
  const named = (data.offer?.anoncreds ?? data.proposal?.anoncreds) as { cred_def_id?: string } | undefined
  const attributes = data.offerAttributes ?? data.proposalAttributes ?? []
  return {
    credentialExchangeId: record.id,
    connectionId: record.connectionId ?? null,
    role: record.role,
    state: record.state,
    threadId: record.threadId,
    credentialDefinitionId: named?.cred_def_id ?? null,
    claims: attributes.map(({ name, value, mimeType }) => ({ name, value, ...(mimeType ? { mimeType } : {}) })),
    errorMessage: record.errorMessage ?? null,
    createdAt: record.createdAt.toISOString(),
    updatedAt: (record.updatedAt ?? record.createdAt).toISOString(),
  }
}

/**
 * Credential exchange `id`.
 * @throws NotFoundError when there is none.
 */
export async function getCredentialExchange(agent: DidcommAgent, id: string): Promise<CredentialExchangeView> {
  return credentialExchangeView(agent, found(await agent.modules.didcomm.credentials.findById(id), `credential exchange '${id}' not found`))
}
