/**
 * Presentation exchanges as the admin API lists them (vs-agent's `PresentationData`, read from
 * Credo's proof exchange records and Parley's flow records): what was requested, what the
 * verified presentation revealed, and where the exchange stands.
 */
import type { DidCommProofExchangeRecord } from '@credo-ts/didcomm'
import type { Claim } from '@parley/shared'
import type { DidcommAgent } from '../didcomm/agent.ts'
import { found } from '../errors/index.ts'
import { recordRepository } from '../wallet/storage/repository.ts'
import { PresentationFlowRecord, type RequestedCredential } from './PresentationFlowRecord.ts'

/** One presentation exchange; `claims` only once a presentation arrived. */
export interface PresentationView {
  proofExchangeId: string
  connectionId: string | null
  state: string
  verified: boolean
  threadId: string
  requestedCredentials: RequestedCredential[]
  claims: Claim[]
  createdAt: string
  updatedAt: string
}

type RevealedProof = {
  requested_proof?: {
    revealed_attrs?: Record<string, { raw: string }>
    revealed_attr_groups?: Record<string, { values: Record<string, { raw: string }> }>
  }
}

/** The view of `record` (any role, any state). */
export async function presentationView(agent: DidcommAgent, record: DidCommProofExchangeRecord): Promise<PresentationView> {
  const flow = await recordRepository(agent.context, PresentationFlowRecord).findById(agent.context, record.id)
  const data = await agent.modules.didcomm.proofs.getFormatData(record.id)
  const proof = (data.presentation?.anoncreds as RevealedProof | undefined)?.requested_proof
  const claims: Claim[] = [
    ...Object.values(proof?.revealed_attr_groups ?? {}).flatMap((group) =>
      Object.entries(group.values).map(([name, value]) => ({ name, value: value.raw })),
    ),
    ...Object.entries(proof?.revealed_attrs ?? {}).map(([name, value]) => ({ name, value: value.raw })),
  ]
  return {
    proofExchangeId: record.id,
    connectionId: record.connectionId ?? null,
    state: record.state,
    verified: record.isVerified ?? false,
    threadId: record.threadId,
    requestedCredentials: flow?.requestedCredentials ?? [],
    claims,
    createdAt: record.createdAt.toISOString(),
    updatedAt: (record.updatedAt ?? record.createdAt).toISOString(),
  }
}

/** Deletes the exchange, its DIDComm messages and its flow; false when there is no such exchange. */
export async function deletePresentation(agent: DidcommAgent, proofExchangeId: string): Promise<boolean> {
  const proofs = agent.modules.didcomm.proofs
  if (!(await proofs.findById(proofExchangeId))) return false
  await proofs.deleteById(proofExchangeId, { deleteAssociatedDidCommMessages: true })
  const flows = recordRepository(agent.context, PresentationFlowRecord)
  if (await flows.findById(agent.context, proofExchangeId)) await flows.deleteById(agent.context, proofExchangeId)
  return true
}

/**
 * Presentation exchange `id`.
 * @throws NotFoundError when there is none.
 */
export async function getPresentation(agent: DidcommAgent, id: string): Promise<PresentationView> {
  return presentationView(agent, found(await agent.modules.didcomm.proofs.findById(id), `presentation exchange '${id}' not found`))
}
