/**
 * Durability before anything leaves: an envelope is handed out only once the commits made before
 * it was asked for are on disk. Every DIDComm message agent-node sends (over a wallet's session,
 * to an endpoint, into the pickup queue) is packed first, so no peer learns of a state a power
 * loss could undo (docs/durability.md, "Commits and the disk").
 */
import { InjectionSymbols, inject, injectable, type AgentContext, type Logger } from '@credo-ts/core'
import { DidCommDocumentService, DidCommEnvelopeService, type DidCommEncryptedMessage, type DidCommMessage } from '@credo-ts/didcomm'

/** The dependency token of what packing waits for (agent-node's `Database.syncToDisk`). */
export const SYNC_TO_DISK = Symbol('SyncToDisk')

/**
 * Credo's envelope service, whose `packMessage` also waits for `SYNC_TO_DISK`. The sync starts
 * when packing does and runs beside it (the `fdatasync` on libuv's thread pool, the encryption on
 * the event loop), so a message waits for the disk only if its sync takes longer than its
 * encryption. Waiting before packing, as the sender did, put both on every message's path, one
 * after the other (bench/README.md, "chat-round-trip").
 */
@injectable()
export class DurableEnvelopeService extends DidCommEnvelopeService {
  constructor(@inject(InjectionSymbols.Logger) logger: Logger, @inject(DidCommDocumentService) documentService: DidCommDocumentService) {
    super(logger, documentService)
  }

  /**
   * Packs as Credo does, and resolves once both the envelope and the sync of the commits made
   * before the call are done.
   * @throws what packing throws; the sync's error when the disk refuses it
   */
  override async packMessage(
    agentContext: AgentContext,
    payload: DidCommMessage,
    keys: Parameters<DidCommEnvelopeService['packMessage']>[2],
  ): Promise<DidCommEncryptedMessage> {
    const durable = agentContext.resolve<() => Promise<void>>(SYNC_TO_DISK)()
    const [envelope] = await Promise.all([super.packMessage(agentContext, payload, keys), durable])
    return envelope
  }
}
