/**
 * For tests only: the wallet answers a proof request with a presentation whose revealed value it
 * altered after creating it (a forged claim), sent like a real one. The verifier must reject it.
 */
import { DidCommMessageSender, DidCommOutboundMessageContext, type DidCommPresentationV2Message } from '@credo-ts/didcomm'
import { JsonEncoder } from '@credo-ts/core'
import { proofV2 } from '../../src/messaging/adapters/protocol-messages.ts'
import type { WalletPeer } from '../../src/wallet-peer/WalletPeer.ts'

type RevealedGroups = {
  requested_proof: { revealed_attr_groups: Record<string, { values: Record<string, { raw: string; encoded: string }> }> }
}

/** Presents with the value of attribute `name` in group `group` replaced by `forgedValue`. */
export async function presentForged(
  wallet: WalletPeer,
  proofExchangeRecordId: string,
  group: string,
  name: string,
  forgedValue: string,
): Promise<void> {
  const { agent } = wallet
  const proofs = agent.modules.didcomm.proofs
  const { proofFormats } = await proofs.selectCredentialsForRequest({ proofExchangeRecordId })
  const proofRecord = await proofs.getById(proofExchangeRecordId)
  const { message } = await proofV2(agent).acceptRequest(agent.context, { proofRecord, proofFormats })
  const attachment = (message as DidCommPresentationV2Message).presentationAttachments[0]!
  const presentation = attachment.getDataAsJson<RevealedGroups>()
  const value = presentation.requested_proof.revealed_attr_groups[group]!.values[name]!
  value.raw = forgedValue
  value.encoded = '1234567890'
  attachment.data.base64 = JsonEncoder.toBase64(presentation)
  const connection = await agent.modules.didcomm.connections.getById(proofRecord.connectionId!)
  await agent.dependencyManager
    .resolve(DidCommMessageSender)
    .sendMessage(new DidCommOutboundMessageContext(message, { agentContext: agent.context, connection, associatedRecord: proofRecord }))
}
