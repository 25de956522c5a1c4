/**
 * A DIDComm wallet: a Credo agent with outbound WebSocket/HTTP and no endpoint of its own, as a
 * phone wallet is. It is both the terminal wallet (`npm run wallet`) and the wallet peer of the
 * end-to-end tests and benchmarks.
 *
 * Having no endpoint, it receives through the connection it opened (`LivePickupChannel`: message
 * pickup v2 in live mode, reopened whenever its socket to the agent closes).
 *
 * As a holder it accepts AnonCreds credential offers (issue-credential v2) and answers proof
 * requests (present-proof v2); offers and requests always wait for an explicit call. It answers
 * menus (question-answer 1.0), shows and performs the contextual menu (action-menu 1.0) and can
 * hang up (DID Rotate 1.0).
 *
 * It speaks 2060.io's protocols as the Hologram wallet does (media sharing, receipts, user
 * profile, calls, MRTD) through its agent's modules (`wallet.agent.modules.media` and so on);
 * `nextDidComm` observes every message it receives, in JSON form.
 *
 * Agents deliver at least once (a message sent again after a crash, a pickup repeated after a
 * lost confirmation): a repeat of a DIDComm `@id` already seen on the connection reaches no
 * listener (texts, `nextDidComm`).
 */
import { randomBytes } from 'node:crypto'
import type { AnonCredsCredentialInfo } from '@credo-ts/anoncreds'
import type { BaseEvent } from '@credo-ts/core'
import {
  QuestionAnswerEventTypes,
  QuestionAnswerRole,
  QuestionAnswerState,
  type QuestionAnswerRecord,
  type QuestionAnswerStateChangedEvent,
} from '@credo-ts/question-answer'
import {
  DidCommEventTypes,
  type DidCommConnectionDidRotatedEvent,
  type DidCommConnectionRecord,
  type DidCommMessageProcessedEvent,
  type DidCommPlaintextMessage,
  DidCommCredentialEventTypes,
  DidCommCredentialState,
  DidCommProofEventTypes,
  DidCommProofState,
  type DidCommCredentialExchangeRecord,
  type DidCommCredentialStateChangedEvent,
  type DidCommProofExchangeRecord,
  type DidCommProofStateChangedEvent,
  DidCommBasicMessageEventTypes,
  DidCommBasicMessageRole,
  DidCommConnectionEventTypes,
  type DidCommBasicMessageStateChangedEvent,
} from '@credo-ts/didcomm'
import { LRUCache } from 'lru-cache'
import { openDatabase, type Database } from '../database/index.ts'
import { LivePickupChannel } from './LivePickupChannel.ts'
import {
  ActionMenuEventTypes,
  ActionMenuRole,
  ActionMenuState,
  type ActionMenuRecord,
  type ActionMenuStateChangedEvent,
} from '../didcomm/protocols/action-menu/index.ts'
import { createDidcommAgent, type DidcommAgent } from '../didcomm/agent.ts'
import type { Logger } from '../logging/index.ts'
import { openWallet } from '../wallet/index.ts'

/** A basic message the wallet received. `sentTime` is the sender's clock. */
export interface ReceivedText {
  id: string
  connectionId: string
  content: string
  sentTime: Date
  threadId?: string
}

/** A DIDComm message the wallet received, as JSON (`@type`, `@id`, `~thread`, fields...). */
export interface ReceivedDidComm {
  connectionId?: string
  json: Record<string, unknown>
}

export interface WalletPeerOptions {
  label: string
  /** SQLite file for the wallet's records and keys; `:memory:` (default) forgets everything on stop. */
  databasePath?: string
  /** Secret the wallet's keys are encrypted with; random per process when omitted. */
  walletKey?: string
  logger: Logger
  logLevel?: string
}

/** What `answerProofRequest` did: presented, or declined with the reason it could not present. */
export type ProofAnswer = { presented: true; record: DidCommProofExchangeRecord } | { presented: false; reason: string }

/** How many received `@id`s are remembered to drop repeats (the oldest are forgotten first). */
const SEEN_IDS = 10_000

export class WalletPeer {
  private readonly listeners = new Set<(message: ReceivedText) => void>()
  private readonly didCommListeners = new Set<(message: ReceivedDidComm) => void>()
  /** Receives through the socket to the agent: reopened in live pickup mode whenever it closes. */
  private readonly liveChannel: LivePickupChannel
  /** `<event kind> <connection id> <@id>` of the messages already passed to listeners; the least recent go first. */
  private readonly seen = new LRUCache<string, true>({ max: SEEN_IDS })

  private constructor(
    readonly agent: DidcommAgent,
    readonly label: string,
    private readonly database: Database,
    private readonly logger: Logger,
  ) {
    agent.events.on<DidCommBasicMessageStateChangedEvent>(DidCommBasicMessageEventTypes.DidCommBasicMessageStateChanged, ({ payload }) => {
      if (payload.basicMessageRecord.role !== DidCommBasicMessageRole.Receiver) return
      if (!this.firstTime('text', payload.basicMessageRecord.connectionId, payload.message.id)) return
      const text: ReceivedText = {
        id: payload.message.id,
        connectionId: payload.basicMessageRecord.connectionId,
        content: payload.message.content,
        sentTime: payload.message.sentTime,
        threadId: payload.message.thread?.parentThreadId ?? payload.message.thread?.threadId,
      }
      for (const listener of this.listeners) listener(text)
    })
    agent.events.on<DidCommMessageProcessedEvent>(DidCommEventTypes.DidCommMessageProcessed, ({ payload }) => {
      if (!this.firstTime('didcomm', payload.connection?.id, payload.message.id)) return
      const received: ReceivedDidComm = { connectionId: payload.connection?.id, json: payload.message.toJSON() as Record<string, unknown> }
      for (const listener of this.didCommListeners) listener(received)
    })
    this.liveChannel = new LivePickupChannel(agent, logger)
  }

  /** Whether this `@id` is new on the connection for this kind of listener; remembers it. */
  private firstTime(kind: string, connectionId: string | undefined, messageId: string): boolean {
    const key = `${kind} ${connectionId ?? ''} ${messageId}`
    if (this.seen.has(key)) return false
    this.seen.set(key, true)
    return true
  }

  /** Creates and initializes a wallet. */
  static async create(options: WalletPeerOptions): Promise<WalletPeer> {
    const database = await openDatabase(options.databasePath ?? ':memory:')
    const wallet = await openWallet(database, options.walletKey ?? randomBytes(32).toString('base64url'))
    const agent = createDidcommAgent({
      endpoints: [],
      inboundTransports: [],
      kms: wallet.kms,
      storageService: wallet.storageService,
      logger: options.logger,
      logLevel: options.logLevel ?? 'warn',
      ownProfile: { displayName: options.label },
    })
    await agent.initialize()
    return new WalletPeer(agent, options.label, database, options.logger)
  }

  /**
   * Accepts an out-of-band invitation URL and waits until DID Exchange completes.
   * @returns the wallet-side connection id.
   * @throws when the exchange does not complete within `timeoutMs`.
   */
  async connect(invitationUrl: string, timeoutMs = 20_000): Promise<string> {
    const connections = this.agent.modules.didcomm.connections
    const { connectionRecord } = await this.agent.modules.didcomm.oob.receiveInvitationFromUrl(invitationUrl, { label: this.label })
    if (!connectionRecord) throw new Error('the invitation asks for no connection (no DID Exchange handshake in it)')
    try {
      // Credo's wait watches for this connection's completion before it reads the current state,
      // and stops watching once it completes or the time is up
      await connections.returnWhenIsConnected(connectionRecord.id, { timeoutMs })
    } catch (error) {
      // rxjs's TimeoutError (Credo's dependency, not ours)
      if ((error as Error).name === 'TimeoutError') throw new Error(`DID Exchange did not complete within ${timeoutMs} ms`)
      throw error
    }
    await this.liveChannel.afterConnect(connectionRecord.id)
    return connectionRecord.id
  }

  /** Sends a basic message on `connectionId`. @returns the DIDComm message id. */
  async sendText(connectionId: string, content: string): Promise<string> {
    const record = await this.agent.modules.didcomm.basicMessages.sendMessage(connectionId, content)
    return record.threadId!
  }

  /** Calls `listener` for every text received; returns the unsubscribe function. */
  onText(listener: (message: ReceivedText) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /** Resolves with the next text matching `predicate`; rejects after `timeoutMs`. */
  nextText(predicate: (message: ReceivedText) => boolean = () => true, timeoutMs = 20_000): Promise<ReceivedText> {
    return nextMatching(this.listeners, predicate, timeoutMs)
  }

  /**
   * Resolves with the next DIDComm message of `@type` `type` (a full message type URI) matching
   * `predicate`; rejects after `timeoutMs`.
   */
  nextDidComm(type: string, predicate: (message: ReceivedDidComm) => boolean = () => true, timeoutMs = 20_000): Promise<ReceivedDidComm> {
    return nextMatching(this.didCommListeners, (message) => message.json['@type'] === type && predicate(message), timeoutMs)
  }

  /**
   * Resolves with the credential offer received on thread `threadId` (already received, or the
   * next one); rejects after `timeoutMs`.
   */
  credentialOffer(threadId: string, timeoutMs = 20_000): Promise<DidCommCredentialExchangeRecord> {
    return this.waitFor<DidCommCredentialStateChangedEvent, DidCommCredentialExchangeRecord>(
      DidCommCredentialEventTypes.DidCommCredentialStateChanged,
      (payload) => payload.credentialExchangeRecord,
      () => this.agent.modules.didcomm.credentials.findAllByQuery({ threadId }),
      (record) => record.threadId === threadId && record.state === DidCommCredentialState.OfferReceived,
      timeoutMs,
      `credential offer on thread ${threadId}`,
    )
  }

  /**
   * Accepts a received credential offer and waits until the credential is stored (the exchange
   * reaches `done`). @returns the finished exchange record.
   */
  async acceptCredentialOffer(credentialExchangeRecordId: string, timeoutMs = 30_000): Promise<DidCommCredentialExchangeRecord> {
    const credentials = this.agent.modules.didcomm.credentials
    const done = this.waitFor<DidCommCredentialStateChangedEvent, DidCommCredentialExchangeRecord>(
      DidCommCredentialEventTypes.DidCommCredentialStateChanged,
      (payload) => payload.credentialExchangeRecord,
      async () => [await credentials.getById(credentialExchangeRecordId)],
      (record) => record.id === credentialExchangeRecordId && record.state === DidCommCredentialState.Done,
      timeoutMs,
      `credential of exchange ${credentialExchangeRecordId}`,
    )
    await credentials.acceptOffer({ credentialExchangeRecordId })
    return done
  }

  /** The AnonCreds credentials this wallet holds. */
  anonCredsCredentials(): Promise<AnonCredsCredentialInfo[]> {
    return this.agent.modules.anoncreds.getCredentials({})
  }

  /**
   * Resolves with the proof request received on thread `threadId` (already received, or the
   * next one); rejects after `timeoutMs`.
   */
  proofRequest(threadId: string, timeoutMs = 20_000): Promise<DidCommProofExchangeRecord> {
    return this.waitFor<DidCommProofStateChangedEvent, DidCommProofExchangeRecord>(
      DidCommProofEventTypes.ProofStateChanged,
      (payload) => payload.proofRecord,
      () => this.agent.modules.didcomm.proofs.findAllByQuery({ threadId }),
      (record) => record.threadId === threadId && record.state === DidCommProofState.RequestReceived,
      timeoutMs,
      `proof request on thread ${threadId}`,
    )
  }

  /**
   * Answers a received proof request: presents with the credentials Credo selects, or, when the
   * wallet cannot (no matching credential, a predicate that does not hold), declines it with a
   * problem report to the verifier and says why.
   */
  async answerProofRequest(proofExchangeRecordId: string): Promise<ProofAnswer> {
    const proofs = this.agent.modules.didcomm.proofs
    try {
      const { proofFormats } = await proofs.selectCredentialsForRequest({ proofExchangeRecordId })
      return { presented: true, record: await proofs.acceptRequest({ proofExchangeRecordId, proofFormats }) }
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error)
      this.logger.info({ proofExchangeRecordId, reason }, 'cannot present; declining the proof request')
      await proofs.declineRequest({
        proofExchangeRecordId,
        sendProblemReport: true,
        problemReportDescription: 'cannot satisfy the proof request',
      })
      return { presented: false, reason }
    }
  }

  /**
   * Resolves with the next DIDComm message of type `messageTypeUri` the wallet processes, as it
   * arrived (plaintext JSON), and the connection it came on; rejects after `timeoutMs`. Subscribe
   * before causing the message.
   */
  nextInbound(messageTypeUri: string, timeoutMs = 20_000): Promise<{ json: DidCommPlaintextMessage; connectionId: string | undefined }> {
    return new Promise((resolve, reject) => {
      const listener = ({ payload }: DidCommMessageProcessedEvent) => {
        if (payload.message.type !== messageTypeUri) return
        clearTimeout(timer)
        this.agent.events.off(DidCommEventTypes.DidCommMessageProcessed, listener)
        resolve({ json: payload.message.toJSON() as DidCommPlaintextMessage, connectionId: payload.connection?.id })
      }
      const timer = setTimeout(() => {
        this.agent.events.off(DidCommEventTypes.DidCommMessageProcessed, listener)
        reject(new Error(`no ${messageTypeUri} within ${timeoutMs} ms`))
      }, timeoutMs)
      this.agent.events.on(DidCommEventTypes.DidCommMessageProcessed, listener)
    })
  }

  /** Resolves with the menu (question) received on thread `threadId`; rejects after `timeoutMs`. */
  menuQuestion(threadId: string, timeoutMs = 20_000): Promise<QuestionAnswerRecord> {
    return this.waitFor<QuestionAnswerStateChangedEvent, QuestionAnswerRecord>(
      QuestionAnswerEventTypes.QuestionAnswerStateChanged,
      (payload) => payload.questionAnswerRecord,
      () => this.agent.modules.questionAnswer.findAllByQuery({ threadId }),
      (record) =>
        record.threadId === threadId &&
        record.role === QuestionAnswerRole.Responder &&
        record.state === QuestionAnswerState.QuestionReceived,
      timeoutMs,
      `menu on thread ${threadId}`,
    )
  }

  /** Picks the menu item shown as `text` (answers the question of record `questionRecordId`). */
  async answerMenu(questionRecordId: string, text: string): Promise<void> {
    await this.agent.modules.questionAnswer.sendAnswer(questionRecordId, text)
  }

  /**
   * Resolves with the contextual menu shown on `connectionId` once one matching `matches` has
   * arrived (already, or next); rejects after `timeoutMs`.
   */
  contextualMenu(
    connectionId: string,
    matches: (record: ActionMenuRecord) => boolean = () => true,
    timeoutMs = 20_000,
  ): Promise<ActionMenuRecord> {
    const actionMenu = this.agent.modules.actionMenu
    return this.waitFor<ActionMenuStateChangedEvent, ActionMenuRecord>(
      ActionMenuEventTypes.ActionMenuStateChanged,
      (payload) => payload.actionMenuRecord,
      async () => [await actionMenu.findActiveMenu({ connectionId, role: ActionMenuRole.Requester })].filter((record) => record !== null),
      (record) =>
        record.connectionId === connectionId &&
        record.role === ActionMenuRole.Requester &&
        record.state === ActionMenuState.PreparingSelection &&
        matches(record),
      timeoutMs,
      `contextual menu on connection ${connectionId}`,
    )
  }

  /** Asks the agent for its contextual menu. */
  requestContextualMenu(connectionId: string): Promise<void> {
    return this.agent.modules.actionMenu.requestMenu({ connectionId })
  }

  /** Performs option `name` of the contextual menu shown on `connectionId`. */
  performContextualMenuOption(connectionId: string, name: string): Promise<void> {
    return this.agent.modules.actionMenu.performAction({ connectionId, name })
  }

  /** Terminates the connection (DID Rotate 1.0 hangup). */
  hangUp(connectionId: string): Promise<void> {
    return this.agent.modules.didcomm.connections.hangup({ connectionId })
  }

  /** Resolves once the agent has hung up `connectionId` (the record lost the agent's DID); rejects after `timeoutMs`. */
  hungUpBy(connectionId: string, timeoutMs = 20_000): Promise<DidCommConnectionRecord> {
    return this.waitFor<DidCommConnectionDidRotatedEvent, DidCommConnectionRecord>(
      DidCommConnectionEventTypes.DidCommConnectionDidRotated,
      (payload) => payload.connectionRecord,
      async () => [await this.agent.modules.didcomm.connections.getById(connectionId)],
      (record) => record.id === connectionId && !record.theirDid,
      timeoutMs,
      `hang-up on connection ${connectionId}`,
    )
  }

  async stop(): Promise<void> {
    this.liveChannel.stop()
    await this.agent.shutdown()
    await this.database.close()
  }

  /**
   * Waits for a record matching `matches`: checks `existing()` after subscribing to `eventType`
   * (so nothing slips between), then each event's record.
   */
  private waitFor<E extends BaseEvent, R>(
    eventType: E['type'],
    recordOf: (payload: E['payload']) => R,
    existing: () => Promise<R[]>,
    matches: (record: R) => boolean,
    timeoutMs: number,
    what: string,
  ): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      let settled = false
      const finish = (error: Error | undefined, record?: R) => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        this.agent.events.off<E>(eventType, listener)
        if (error) reject(error)
        else resolve(record as R)
      }
      const listener = ({ payload }: E) => {
        const record = recordOf(payload)
        if (matches(record)) finish(undefined, record)
      }
      const timer = setTimeout(() => finish(new Error(`no ${what} within ${timeoutMs} ms`)), timeoutMs)
      this.agent.events.on<E>(eventType, listener)
      existing().then(
        (records) => {
          const found = records.find(matches)
          if (found) finish(undefined, found)
        },
        (error: unknown) => finish(error instanceof Error ? error : new Error(String(error))),
      )
    })
  }
}

/** Resolves with the next value passed to the listeners of `listeners` that matches `predicate`; rejects after `timeoutMs`. */
function nextMatching<T>(listeners: Set<(value: T) => void>, predicate: (value: T) => boolean, timeoutMs: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const listener = (value: T) => {
      if (!predicate(value)) return
      clearTimeout(timer)
      listeners.delete(listener)
      resolve(value)
    }
    const timer = setTimeout(() => {
      listeners.delete(listener)
      reject(new Error(`no matching message within ${timeoutMs} ms`))
    }, timeoutMs)
    listeners.add(listener)
  })
}
