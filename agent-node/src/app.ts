/**
 * agent-node assembled: database and wallet, the Credo agent, the public and admin servers, the
 * event outbox, its publisher and the delivery engine with its subscribers (webhooks, tunnel, event subscriptions), the start-up recovery of events lost in a crash (`events/recovery.ts`, fed by `event-sources.ts`), the admin event stream. `startAgentNode` is what `main.ts` runs and
 * what in-process tests use.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { AgentNodeConfig } from './config/index.ts'
import { lockDataDir, prepareDataDir } from './data-dir/index.ts'
import { openDatabase } from './database/index.ts'
import { boundPort, listen } from './http/listen.ts'
import { OutboundGuard } from './http/outbound-guard.ts'
import { createDidcommAgent, type DidcommAgent } from './didcomm/agent.ts'
import { DatabaseQueueTransportRepository } from './didcomm/transport/DatabaseQueueTransportRepository.ts'
import { InboundInbox } from './didcomm/inbox/InboundInbox.ts'
import { createAdminApp } from './admin/app.ts'
import { checkAdminAccess, type AdminAccessPolicy } from './admin/access.ts'
import { AdminTokens } from './admin/auth.ts'
import { anonCredsRoutes } from './anoncreds-registry/index.ts'
import { CredentialKeyWorkers } from './anoncreds-registry/key-generation/CredentialKeyWorkers.ts'
import { CredentialTypes } from './credentials/CredentialTypes.ts'
import { publicDidRoutes } from './did/routes.ts'
import { ensurePublicDid, registerPublicDidWithCredo } from './did/PublicDidService.ts'
import { bridgeCredoEvents, eventRecoverers } from './event-sources.ts'
import { DeliveryEngine } from './events/delivery/engine.ts'
import { Cluster } from './cluster/Cluster.ts'
import { LeasedDelivery } from './cluster/LeasedDelivery.ts'
import { relayPickups } from './didcomm/transport/pickup-relay.ts'
import { OutboxStore } from './events/outbox/store.ts'
import { EventPublisher } from './events/publisher.ts'
import { RecoveryCheckpointer, recoverLostEvents, type RecoveryReport } from './events/recovery.ts'
import { EventStreamServer, type UpgradeGate } from './events/stream/server.ts'
import { SUBSCRIPTIONS_CHANNEL, SubscriptionService } from './events/subscriptions/service.ts'
import { SubscriptionStore } from './events/subscriptions/store.ts'
import { WebhookSubscriber } from './events/webhooks/subscriber.ts'
import { CleanupStack } from './lifecycle/cleanup-stack.ts'
import type { Logger } from './logging/index.ts'
import { createMetrics } from './observability/metrics.ts'
import { observabilityRoutes } from './observability/routes.ts'
import { IdempotencyStore } from './messaging/idempotency.ts'
import { MessageService } from './messaging/MessageService.ts'
import { PresentationCallbackSubscriber } from './identity-proofs/callbacks.ts'
import { PresentationRequests } from './identity-proofs/PresentationRequests.ts'
import { createPublicApp, createPublicTransports, listenPublic } from './public/app.ts'
import { RetentionPruner } from './retention/pruner.ts'
import { TerminalRecords } from './retention/records.ts'
import { ShortUrls } from './short-urls/ShortUrls.ts'
import { redactReceivedMessage } from './messaging/redaction.ts'
import { TUNNEL_SUBSCRIBER, TunnelClient } from './tunnel/TunnelClient.ts'
import { McpStdioSupervisor } from './mcp/index.ts'
import { openWallet } from './wallet/index.ts'

const packageJson = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }

/** Subscriber name of the default subscription, `EVENTS_BASE_URL`. */
export const DEFAULT_WEBHOOK_SUBSCRIBER = 'webhook:events-base-url'

/** Name and version of this build, as printed at start-up and returned by `GET /v1/agent`. */
export const BUILD = { name: 'parley-agent-node', version: packageJson.version }

export interface AgentNode {
  agent: DidcommAgent
  events: EventPublisher
  outbox: OutboxStore
  delivery: DeliveryEngine
  messages: MessageService
  subscriptions: SubscriptionService
  tunnel?: TunnelClient
  /** Where credential definition keys are made, with the reserve of safe primes (`reservedPrimes`). */
  credentialKeys: CredentialKeyWorkers
  /** The agent's public DID (did:webvh with its SCID, or did:web): the issuer id of its AnonCreds objects. */
  publicDid: string
  /** Ports actually bound (useful when the config asked for port 0). */
  publicPort: number
  adminPort: number
  /** What the start-up event recovery compared and published (`events/recovery.ts`). */
  readonly recovery: RecoveryReport
  /** DIDComm WebSocket connections open on the public port now (closed ones are forgotten at once). */
  readonly openPublicSockets: number
  /** Stops servers, delivery, tunnel and agent once every event is stored, closes the database. */
  stop(): Promise<void>
}

/**
 * The admin API's checks, for the event stream's upgrade: Host and Origin (`admin/access.ts`,
 * 403), then, with ADMIN_API_TOKENS set, an accepted `Authorization: Bearer` token (401).
 */
function adminUpgradeGate(access: AdminAccessPolicy, tokens: AdminTokens): UpgradeGate {
  return (request, path) => {
    const refusal = checkAdminAccess(access, request.headers.host, request.headers.origin)
    if (refusal) return { status: 403, body: refusal }
    if (tokens.guards(path) && !tokens.accepts(request.headers.authorization))
      return {
        status: 401,
        body: { error: 'unauthorized', message: 'the event stream needs Authorization: Bearer <token> (ADMIN_API_TOKENS)' },
      }
    return undefined
  }
}

/**
 * Starts everything `config` describes, after making the data folder private (0700) and taking
 * its lock (`data-dir/`). When a step fails, what was started is stopped again (servers,
 * delivery, the agent), the database is closed and the lock released before the error is rethrown.
 *
 * @throws DataDirLockedError when another live agent-node holds `config.dataDir`
 */
export async function startAgentNode(config: AgentNodeConfig, logger: Logger): Promise<AgentNode> {
  prepareDataDir(config.dataDir)
  const unlock = lockDataDir(config.dataDir)
  const cleanup = new CleanupStack(logger)
  try {
    return await assemble(config, logger, cleanup, unlock)
  } catch (error) {
    await cleanup.unwind()
    unlock()
    throw error
  }
}

/**
 * The start-up steps of `startAgentNode`; each resource registers its undo step on `cleanup`.
 * `unlock` releases the data folder; the returned node's `stop` calls it last.
 */
async function assemble(config: AgentNodeConfig, logger: Logger, cleanup: CleanupStack, unlock: () => void): Promise<AgentNode> {
  // SQLite: commits do not wait for the disk; every way out of the process waits for
  // `syncToDisk` instead (group commit, `database/disk-sync.ts`); WAL checkpoints run in a
  // worker thread (`database/wal-checkpoints.ts`)
  const database = await openDatabase(config.databaseUrl ?? join(config.dataDir, 'agent.sqlite'), {
    onConnectionError: (error) => logger.warn({ err: error }, 'a pooled database connection failed; it will be replaced'),
    syncOnCommit: false,
    checkpointOffThread: true,
    onCheckpointError: (error) => logger.warn({ err: error }, 'a WAL checkpoint failed; it is tried again'),
  })
  const syncToDisk = () => database.syncToDisk()
  cleanup.defer('database', () => database.close())
  const cluster = await Cluster.open(database, {
    instanceId: config.cluster.instanceId,
    ttlMs: config.cluster.leaseTtlSeconds * 1000,
    logger: logger.child({ component: 'cluster' }),
  })
  cleanup.defer('cluster', () => cluster.stop())
  logger.info({ instanceId: cluster.instanceId, leaseTtlSeconds: config.cluster.leaseTtlSeconds }, 'instance')
  const wallet = await openWallet(database, config.walletKey)
  const guard = new OutboundGuard(config.outboundAllowedNetworks)
  cleanup.defer('outbound guard', () => guard.close())
  const inbox = await InboundInbox.open(database, logger.child({ component: 'inbox' }), cluster.instanceId)
  cleanup.defer('inbox', () => inbox.stop())
  cluster.onTick(async () => void (await inbox.adopt()))
  const transports = createPublicTransports(inbox, config.envelopeLimits, logger.child({ component: 'public' }))
  const pickupQueue = await DatabaseQueueTransportRepository.open(database, cluster.instanceId)
  const agent = createDidcommAgent({
    endpoints: config.endpoints,
    inboundTransports: [transports.http, transports.ws],
    kms: wallet.kms,
    storageService: wallet.storageService,
    fetch: guard.fetch as typeof globalThis.fetch,
    pickupQueue,
    syncToDisk,
    logger,
    logLevel: config.logLevel,
    maxFrameBytes: config.envelopeLimits.maxBytes,
    ownProfile: {
      displayName: config.label,
      displayPicture: config.invitationImageUrl ? { links: [config.invitationImageUrl] } : undefined,
    },
  })
  cleanup.defer('agent', () => (agent.isInitialized ? agent.shutdown() : undefined))
  await agent.initialize()
  relayPickups(agent, pickupQueue, cluster, logger.child({ component: 'pickup' }))
  // one instance at a time: two starting together would both create the DID, or both store it
  // as Credo's own DID (cluster/)
  const { record: didRecord, outcome } = await cluster.withLease('public-did', async () => {
    const ensured = await ensurePublicDid(agent.context, config.publicDid, config)
    await registerPublicDidWithCredo(agent.context, ensured.record)
    return ensured
  })
  logger.info({ publicDid: didRecord.did, outcome }, 'public DID')

  const outbox = await OutboxStore.open(database)
  const delivery = new DeliveryEngine(outbox, logger.child({ component: 'delivery' }))
  cleanup.defer('delivery', () => delivery.stop())
  const events = new EventPublisher(outbox, delivery, logger)
  // each subscriber is delivered by the instance holding its lease (cluster/)
  const leased = new LeasedDelivery(delivery, cluster, logger.child({ component: 'delivery' }))
  events.onStored((stored) => leased.announce(stored))
  cleanup.defer('events', () => events.drain())
  const idempotencyKeys = await IdempotencyStore.open(database)
  const messages = new MessageService(agent, events, idempotencyKeys, logger, cluster.instanceId)
  cleanup.defer('messages', () => messages.drain())
  if (config.eventsBaseUrl) {
    await leased.addSubscriber(
      new WebhookSubscriber({ name: DEFAULT_WEBHOOK_SUBSCRIBER, baseUrl: config.eventsBaseUrl, ...config.eventDelivery }),
    )
  }
  // Before any flow can report (recovery, the inbox): a subscriber added for the first time
  // starts at the newest event.
  const callbacks = new PresentationCallbackSubscriber(config.eventDelivery.retry, guard, agent)
  await leased.addSubscriber(callbacks)
  const mcp = new McpStdioSupervisor(config.mcpStdioServers, logger.child({ component: 'mcp-stdio' }))
  mcp.start()
  cleanup.defer('stdio MCP servers', () => mcp.stop())
  const tunnel = config.tunnel
    ? new TunnelClient({ ...config.tunnel, instanceId: cluster.instanceId }, messages, logger.child({ component: 'tunnel' }), {
        mcp,
        redactMessage: (connectionId, messageId) => redactReceivedMessage(agent, outbox, connectionId, messageId),
        syncToDisk,
      })
    : undefined
  if (tunnel) await leased.addSubscriber(tunnel)
  const unconfigured = await unconfiguredSubscribers(config, outbox, logger)
  const subscriptions = new SubscriptionService({
    store: await SubscriptionStore.open(database),
    engine: leased,
    guard,
    delivery: config.eventDelivery,
    logger: logger.child({ component: 'subscriptions' }),
    changed: () => void cluster.signal(SUBSCRIPTIONS_CHANNEL, ''),
  })
  cleanup.defer('subscriptions', () => subscriptions.stop())
  await subscriptions.start()
  // subscriptions created or deleted on another instance
  cluster.onSignal(SUBSCRIPTIONS_CHANNEL, () => void subscriptions.sync())
  cluster.onTick(() => subscriptions.sync())
  bridgeCredoEvents(agent, events)
  const recoveryLogger = logger.child({ component: 'recovery' })
  // one instance at a time: two starting together would both publish what is missing
  const recovered = await cluster.withLease('recovery', () =>
    recoverLostEvents(outbox, events, eventRecoverers(agent, wallet.storageService), recoveryLogger),
  )
  // While running, the checkpoint moves only where this process is the database's only writer
  // (SQLite): on a shared PostgreSQL another instance may die with a lost event that this one's
  // checkpoint would then step over; there it moves at each start-up recovery only.
  const checkpointer = new RecoveryCheckpointer(outbox, events, recoveryLogger)
  if (database.dialect === 'sqlite') checkpointer.start()
  cleanup.defer('recovery checkpoint', () => checkpointer.stop())
  // after recovery, so events of messages read before a crash come after the recovered ones;
  // an envelope is deleted only once the events its processing published are stored
  inbox.start(agent.context, () => events.settled())
  logger.info(recovered, 'start-up event recovery')
  // at start: this instance's (restarted with the same INSTANCE_ID) and those of dead instances;
  // later, at every round, those of instances that died meanwhile
  const gone = async (instanceId: string | undefined) => instanceId === undefined || !(await cluster.isAlive(instanceId))
  logger.info(
    await messages.resendAccepted(async (instanceId) => instanceId === cluster.instanceId || (await gone(instanceId))),
    'accepted messages not sent before the last stop, sent again',
  )
  cluster.onTick(async () => {
    const adopted = await messages.resendAccepted(async (instanceId) => instanceId !== cluster.instanceId && (await gone(instanceId)))
    if (adopted.resent + adopted.errored > 0) logger.warn(adopted, 'accepted messages of an instance that died, sent from here')
  })
  const pruner = new RetentionPruner(outbox, config.retention, logger.child({ component: 'retention' }), {
    records: new TerminalRecords(agent, wallet.storageService),
    idempotencyKeys,
  })
  pruner.start()
  cleanup.defer('retention', () => pruner.stop())

  const publicDid = didRecord.did
  const keyWorkers = new CredentialKeyWorkers({ reserve: config.safePrimeReserve })
  cleanup.defer('credential key workers', () => keyWorkers.close())
  const credentialTypes = new CredentialTypes(agent, publicDid, {
    workers: keyWorkers,
    logger: logger.child({ component: 'credential-types' }),
  })
  // an agent that already issues keeps safe primes ready for its next credential definition;
  // any other agent searches none until its first one (CredentialKeyWorkers refills after each)
  if (config.safePrimeReserve > 0 && (await credentialTypes.any())) void keyWorkers.fillReserve()
  const shortUrls = new ShortUrls(agent, config.publicUrl, config.shortUrlExpirySeconds)
  const presentationRequests = new PresentationRequests({ agent, config, shortUrls, guard, events, logger })
  presentationRequests.start()
  cleanup.defer('presentation requests', () => presentationRequests.stop())

  const publicApp = createPublicApp(() => agent, transports, config, shortUrls, publicDid, syncToDisk)
  publicApp.route('/', publicDidRoutes(didRecord))
  publicApp.route(
    '/',
    anonCredsRoutes(() => agent.context, publicDid),
  )
  const publicServer = await listenPublic(publicApp, transports, config.publicPort, logger.child({ component: 'public' }))
  cleanup.defer('public server', () => {
    for (const socket of transports.socketServer.clients) socket.terminate()
    const closed = new Promise((resolve) => publicServer.close(resolve))
    publicServer.closeAllConnections?.()
    return closed
  })
  const metrics = createMetrics({ agent, delivery, outbox, tunnel })
  cleanup.defer('metrics', () => metrics.close())
  const adminApp = createAdminApp({
    agent,
    syncToDisk,
    config,
    messages,
    storage: wallet.storageService,
    logger,
    build: BUILD,
    outbox,
    delivery: leased,
    subscriptions,
    publicDid,
    credentialTypes,
    shortUrls,
    presentationRequests,
    guard,
  })
  adminApp.route(
    '/',
    observabilityRoutes({
      registry: metrics.registry,
      outbox,
      tunnel,
      maxLagSeconds: config.readyMaxOutboxLagSeconds,
      ignoredSubscribers: [callbacks.name, ...unconfigured],
    }),
  )
  const adminServer = await listen(adminApp.fetch, config.adminPort, config.adminHost, logger.child({ component: 'admin' }))
  const eventStream = new EventStreamServer(outbox, events, logger.child({ component: 'event-stream' }))
  eventStream.attach(adminServer, adminUpgradeGate(config.adminAccess, new AdminTokens(config.adminApiTokens)))
  tunnel?.start()

  return {
    agent,
    events,
    outbox,
    delivery,
    messages,
    subscriptions,
    tunnel,
    credentialKeys: keyWorkers,
    publicDid: didRecord.did,
    recovery: recovered,
    publicPort: boundPort(publicServer),
    adminPort: boundPort(adminServer),
    get openPublicSockets() {
      return transports.ws.openSockets
    },
    async stop() {
      try {
        await stopServices()
      } finally {
        // even when a step above failed: the database and the data folder are never left held
        await database.close()
        unlock()
      }
    },
  }

  /** Everything `stop` ends before the database, newest consumers first. */
  async function stopServices(): Promise<void> {
    await eventStream.close()
    await new Promise((resolve) => adminServer.close(resolve))
    for (const socket of transports.socketServer.clients) socket.terminate()
    await new Promise((resolve) => publicServer.close(resolve))
    publicServer.closeAllConnections?.()
    await inbox.stop()
    await pruner.stop()
    await messages.drain()
    await presentationRequests.stop()
    await keyWorkers.close()
    await events.drain()
    await checkpointer.stop()
    await agent.modules.receipts.flush()
    // Deliveries in flight are abandoned here and made again after the next start.
    await delivery.stop()
    // after the cursors are written: the other instances take the leases over at once
    await cluster.stop()
    subscriptions.stop()
    await tunnel?.stop()
    await mcp.stop()
    metrics.close()
    await guard.close()
    await agent.shutdown()
  }
}

/**
 * The built-in subscribers this configuration no longer has (the webhook of `EVENTS_BASE_URL`, the
 * tunnel of `CONTROLLER_TUNNEL_URL`, once either is removed), warning about each the outbox still
 * keeps and marking it absent (`OutboxStore.markAbsent`). Their events and cursors are kept for
 * when they are configured again, for EVENTS_RETENTION_DAYS after they were first found missing:
 * after that the pruner no longer keeps an event for them, so an unset variable does not grow the
 * outbox forever. They do not count for `/readyz`, whose lag would otherwise only grow
 * (`parley_outbox_lag_seconds` still shows them).
 */
async function unconfiguredSubscribers(config: AgentNodeConfig, outbox: OutboxStore, logger: Logger): Promise<string[]> {
  const unconfigured = [...(config.eventsBaseUrl ? [] : [DEFAULT_WEBHOOK_SUBSCRIBER]), ...(config.tunnel ? [] : [TUNNEL_SUBSCRIBER])]
  const absent = (await outbox.subscribers()).filter((subscriber) => unconfigured.includes(subscriber))
  for (const subscriber of absent) {
    logger.warn(
      { subscriber },
      'a subscriber this configuration no longer has: its events are kept for when it is configured again, for EVENTS_RETENTION_DAYS after it was first found missing (parley_outbox_lag_seconds shows how far behind), and do not count for /readyz',
    )
  }
  await outbox.markAbsent(absent)
  return unconfigured
}
