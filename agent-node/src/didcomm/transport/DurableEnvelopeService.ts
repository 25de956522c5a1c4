/**
 * agent-node's DIDComm v1 envelope service (Aries RFC 0019, "Encryption Envelope"), in Credo's
 * place. Durability before anything leaves: an envelope is handed out only once the commits made
 * before it was asked for are on disk. Every DIDComm message agent-node sends (over a wallet's
 * session, to an endpoint, into the pickup queue) is packed first, so no peer learns of a state a
 * power loss could undo (docs/durability.md, "Commits and the disk"). The envelopes themselves
 * are `encryption-envelope.ts`'s.
 */
import { CredoError, InjectionSymbols, TypedArrayEncoder, inject, injectable, type AgentContext, type Logger } from '@credo-ts/core'
import {
  DidCommDocumentService,
  DidCommEnvelopeService,
  DidCommForwardMessage,
  DidCommModuleConfig,
  type DidCommEncryptedMessage,
  type DidCommMessage,
} from '@credo-ts/didcomm'
import { type FindOurKey, type OpenedEnvelope, openEnvelope, sealEnvelope } from './encryption-envelope.ts'

/** The dependency token of what packing waits for (agent-node's `Database.syncToDisk`). */
export const SYNC_TO_DISK = Symbol('SyncToDisk')

/**
 * Credo's envelope service, whose `packMessage` also waits for `SYNC_TO_DISK`. The sync starts
 * when packing does and runs beside it (the `fdatasync` on libuv's thread pool, the encryption on
 * the event loop), so a message waits for the disk only if its sync takes longer than its
 * encryption. Waiting before packing, as the sender did, put both on every message's path, one
 * after the other (bench/README.md, "chat-round-trip"). The envelopes are sealed and opened by
 * `encryption-envelope.ts`, the same as Credo's field for field.
 */
@injectable()
export class DurableEnvelopeService extends DidCommEnvelopeService {
  constructor(@inject(InjectionSymbols.Logger) logger: Logger, @inject(DidCommDocumentService) documentService: DidCommDocumentService) {
    super(logger, documentService)
  }

  /**
   * Packs `payload` for `keys.recipientKeys` (authcrypt from `keys.senderKey`, anoncrypt without
   * one), then wraps it in a forward to each of `keys.routingKeys` in turn, as Credo 0.6.3 does
   * (RFC 0019, and RFC 0094 "Cross-Domain Messaging" for the forwards). Resolves once both the
   * envelope and the sync of the commits made before the call are done.
   * @throws Kms.KeyManagementError when the KMS cannot encrypt (an unknown sender key id, a key
   *   of another type); the sync's error when the disk refuses it
   */
  override async packMessage(
    agentContext: AgentContext,
    payload: DidCommMessage,
    keys: Parameters<DidCommEnvelopeService['packMessage']>[2],
  ): Promise<DidCommEncryptedMessage> {
    const durable = agentContext.resolve<() => Promise<void>>(SYNC_TO_DISK)()
    const [envelope] = await Promise.all([this.pack(agentContext, payload, keys), durable])
    return envelope
  }

  private async pack(
    agentContext: AgentContext,
    payload: DidCommMessage,
    { recipientKeys, routingKeys, senderKey }: Parameters<DidCommEnvelopeService['packMessage']>[2],
  ): Promise<DidCommEncryptedMessage> {
    const { useDidSovPrefixWhereAllowed } = agentContext.resolve(DidCommModuleConfig)
    let envelope = await sealEnvelope(agentContext, payload.toJSON({ useDidSovPrefixWhereAllowed }), recipientKeys, senderKey)
    let next = recipientKeys[0]
    for (const routingKey of routingKeys) {
      if (!next) throw new CredoError('A message with routing keys needs a recipient key')
      const forward = new DidCommForwardMessage({ to: TypedArrayEncoder.toBase58(next.publicKey.publicKey), message: envelope })
      envelope = await sealEnvelope(agentContext, forward.toJSON({ useDidSovPrefixWhereAllowed }), [routingKey], null)
      next = routingKey
    }
    return envelope
  }

  /**
   * Opens an envelope (`openEnvelope`), finding which recipient key is ours with Credo's own
   * lookup (a DID, a mediator routing key or an invitation's key). That lookup is private in Credo
   * 0.6.3 (the version the root `package.json` pins); a Credo that renamed it fails every inbound
   * message, and every DIDComm test with it.
   * @throws what `openEnvelope` throws
   */
  override async unpackMessage(agentContext: AgentContext, encryptedMessage: DidCommEncryptedMessage): Promise<OpenedEnvelope> {
    const findOurKey = (this as unknown as { extractOurRecipientKeyWithKeyId: FindOurKey }).extractOurRecipientKeyWithKeyId.bind(this)
    return openEnvelope(agentContext, encryptedMessage, findOurKey)
  }
}
