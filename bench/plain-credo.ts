/**
 * The anchor of the chat benchmark: two plain Credo 0.6.3 agents (no Parley modules) echoing
 * basic messages, the cost of DIDComm itself on this machine. Same pure-JS crypto as Parley (its
 * KMS over Credo's in-memory key storage), records in memory (`InMemoryStorageService` below:
 * `@credo-ts/core` 0.6.3 ships none), the echo agent listening on WebSocket, the wallet agents
 * without an endpoint receiving through message pickup v2 live mode, as `WalletPeer` does.
 * The same plain wallets also talk to agent-node (`connectPlainWallets`), so every path of the
 * benchmark has the same wallet side and the ratios compare the echoing agents alone.
 */
import { randomBytes } from 'node:crypto'
import {
  Agent,
  DidsModule,
  InjectionSymbols,
  JwkDidResolver,
  JsonTransformer,
  Kms,
  RecordNotFoundError,
  type AgentContext,
  type BaseRecordAny,
  type BaseRecordConstructor,
  type DependencyManager,
  type Module,
  type Query,
  type StorageService,
  type TagsBase,
} from '@credo-ts/core'
import {
  DidCommBasicMessageEventTypes,
  DidCommBasicMessageRole,
  DidCommModule,
  DidCommWsOutboundTransport,
  type DidCommBasicMessageStateChangedEvent,
} from '@credo-ts/didcomm'
import { DidCommWsInboundTransport, NodeInMemoryKeyManagementStorage, agentDependencies } from '@credo-ts/node'
import pTimeout from 'p-timeout'
import { WebDidResolver } from '../agent-node/src/did/WebDidResolver.ts'
import { LivePickupChannel } from '../agent-node/src/wallet-peer/LivePickupChannel.ts'
import { ReceiptsModule } from '../agent-node/src/didcomm/protocols/receipts/ReceiptsModule.ts'
import { ParleyKeyManagementService } from '../agent-node/src/wallet/kms/index.ts'
import { freePort } from '../scripts/local-stack.ts'
import { inBatches } from './stats.ts'

/** Wallets connecting at once while the benchmark sets up (a burst of 50 DID Exchanges times out on a loaded machine). */
export const CONNECTING_AT_ONCE = 10

type AnyRecord = BaseRecordAny

/** A stored record: its JSON and its tags. */
interface Row {
  value: unknown
  tags: TagsBase
}

/**
 * Records kept as JSON and tags in a map per record type; tag queries as Credo's storage contract.
 * Queries read only their type's map, as an index on the type would: the echo's basic-message
 * records (two per round trip) never slow its connection and DID lookups, so the anchor costs the
 * same at the end of a run as at its start.
 */
class InMemoryStorageService implements StorageService<AnyRecord> {
  public readonly supportsCursorPagination = false
  private readonly byType = new Map<string, Map<string, Row>>()

  private rowsOf(type: string): Map<string, Row> {
    let rows = this.byType.get(type)
    if (!rows) {
      rows = new Map()
      this.byType.set(type, rows)
    }
    return rows
  }

  async save(_context: AgentContext, record: AnyRecord): Promise<void> {
    record.updatedAt = new Date()
    this.rowsOf(record.type).set(record.id, { value: record.toJSON(), tags: record.getTags() as TagsBase })
  }
  update = this.save
  async delete(_context: AgentContext, record: AnyRecord): Promise<void> {
    this.rowsOf(record.type).delete(record.id)
  }
  async deleteById(_context: AgentContext, recordClass: BaseRecordConstructor<AnyRecord>, id: string): Promise<void> {
    this.rowsOf(recordClass.type).delete(id)
  }
  async getById<R extends AnyRecord>(_context: AgentContext, recordClass: BaseRecordConstructor<R>, id: string): Promise<R> {
    const row = this.rowsOf(recordClass.type).get(id)
    if (!row) throw new RecordNotFoundError(`record ${id} not found`, { recordType: recordClass.type })
    return this.load(row, recordClass)
  }
  async getAll<R extends AnyRecord>(context: AgentContext, recordClass: BaseRecordConstructor<R>): Promise<R[]> {
    return this.findByQuery(context, recordClass, {})
  }
  async findByQuery<R extends AnyRecord>(_context: AgentContext, recordClass: BaseRecordConstructor<R>, query: Query<R>): Promise<R[]> {
    return [...this.rowsOf(recordClass.type).values()]
      .filter((row) => matches(row.tags, query as Query<AnyRecord>))
      .map((row) => this.load(row, recordClass))
  }
  private load<R extends AnyRecord>(row: Row, recordClass: BaseRecordConstructor<R>): R {
    const record = JsonTransformer.fromJSON(row.value, recordClass)
    record.replaceTags(row.tags)
    return record
  }
}

function matches(tags: TagsBase, query: Query<AnyRecord>): boolean {
  const { $and, $or, $not, ...simple } = query as {
    $and?: Query<AnyRecord>[]
    $or?: Query<AnyRecord>[]
    $not?: Query<AnyRecord>
  } & TagsBase
  if ($and && !$and.every((q) => matches(tags, q))) return false
  if ($or && !$or.some((q) => matches(tags, q))) return false
  if ($not && matches(tags, $not)) return false
  return Object.entries(simple).every(([name, wanted]) => {
    const value = tags[name]
    // undefined adds no condition (Credo passes optional filters so); null means "no such tag".
    if (wanted === undefined) return true
    if (wanted === null) return value === undefined || value === null
    if (Array.isArray(wanted)) return Array.isArray(value) && wanted.every((item) => value.includes(item))
    return value === wanted
  })
}

class InMemoryStorageModule implements Module {
  register(dependencyManager: DependencyManager): void {
    dependencyManager.registerInstance(InjectionSymbols.StorageService, new InMemoryStorageService())
  }
}

function plainAgent(label: string, endpoints: string[], port?: number) {
  return new Agent({
    config: { label, autoUpdateStorageOnStartup: true } as never,
    dependencies: agentDependencies,
    modules: {
      // agent-node acknowledges texts with 2060.io receipts; without the protocol a wallet would
      // answer each with a problem report (an extra message agent-node pays for). The echo agent
      // never receives receipts, so the anchor is unchanged by it.
      receipts: new ReceiptsModule(),
      // agent-node's invitation names its public did:webvh, which Credo 0.6.3 cannot resolve
      // itself; resolved once, while connecting.
      dids: new DidsModule({ resolvers: [new WebDidResolver(fetch), new JwkDidResolver()] }),
      storage: new InMemoryStorageModule(),
      kms: new Kms.KeyManagementModule({ backends: [new ParleyKeyManagementService(new NodeInMemoryKeyManagementStorage())] }),
      didcomm: new DidCommModule({
        endpoints,
        transports: { inbound: port ? [new DidCommWsInboundTransport({ port })] : [], outbound: [new DidCommWsOutboundTransport()] },
        connections: { autoAcceptConnections: true },
        basicMessages: true,
        messagePickup: true,
        mediator: false,
        mediationRecipient: false,
      }),
    },
  })
}
/** A plain Credo agent as `plainAgent` makes it. */
export type PlainAgent = ReturnType<typeof plainAgent>

/** A plain Credo wallet connected to the echo agent; `roundTrip` sends a text and waits for its echo. */
export interface PlainWallet {
  roundTrip(content: string): Promise<void>
}

/** The echo agent and `wallets` wallets connected to it. */
export interface PlainCredoEcho {
  wallets: PlainWallet[]
  stop(): Promise<void>
}

/** Starts a plain Credo echo agent on a free port and connects `walletCount` plain Credo wallets to it. */
export async function startPlainCredoEcho(walletCount: number): Promise<PlainCredoEcho> {
  const port = await freePort()
  const echo = plainAgent('plain echo', [`ws://127.0.0.1:${port}`], port)
  await echo.initialize()
  const basicMessages = echo.modules.didcomm.basicMessages
  echo.events.on<DidCommBasicMessageStateChangedEvent>(DidCommBasicMessageEventTypes.DidCommBasicMessageStateChanged, ({ payload }) => {
    if (payload.basicMessageRecord.role !== DidCommBasicMessageRole.Receiver) return
    void basicMessages.sendMessage(payload.basicMessageRecord.connectionId, `echo: ${payload.message.content}`)
  })
  const agents: PlainAgent[] = [echo]
  const stop = async () => {
    for (const agent of agents.reverse()) await agent.shutdown().catch(() => undefined)
  }
  try {
    const wallets = await connectPlainWallets(walletCount, agents, async () => {
      const { outOfBandInvitation } = await echo.modules.didcomm.oob.createInvitation()
      return outOfBandInvitation.toUrl({ domain: 'https://example.org' })
    })
    return { wallets, stop }
  } catch (error) {
    await stop()
    throw error
  }
}

/** How long a wallet waits for DID Exchange to complete, in milliseconds (setup runs 10 at once). */
const CONNECT_TIMEOUT_MS = 60_000

/** How long a wallet waits for the agent's greeting after connecting, in milliseconds. */
const GREETING_TIMEOUT_MS = 60_000

/**
 * Starts `count` plain Credo wallets (pushed to `agents`, so the caller shuts them down) and
 * connects each through an out-of-band invitation URL from `invitationUrl`. `greeted`: each then
 * waits for the agent's first text (agent-node's conversation greets every new connection).
 * @throws when a greeting does not arrive within `GREETING_TIMEOUT_MS`
 */
export async function connectPlainWallets(
  count: number,
  agents: PlainAgent[],
  invitationUrl: () => Promise<string>,
  { greeted = false } = {},
): Promise<PlainWallet[]> {
  return inBatches(count, CONNECTING_AT_ONCE, async (i) => {
    const agent = plainAgent(`plain wallet ${i}`, [])
    agents.push(agent)
    await agent.initialize()
    return connectWallet(agent, await invitationUrl(), greeted)
  })
}

async function connectWallet(agent: PlainAgent, invitationUrl: string, greeted: boolean): Promise<PlainWallet> {
  const waiting = new Map<string, () => void>()
  let greeting: (() => void) | undefined
  const greetingReceived = new Promise<void>((resolve) => {
    greeting = resolve
  })
  agent.events.on<DidCommBasicMessageStateChangedEvent>(DidCommBasicMessageEventTypes.DidCommBasicMessageStateChanged, ({ payload }) => {
    if (payload.basicMessageRecord.role !== DidCommBasicMessageRole.Receiver) return
    greeting?.()
    // the echo ends with the text sent ("echo: <text>" from both echo agents and the scripted model)
    const content = payload.message.content.replace(/^echo: /, '')
    waiting.get(content)?.()
    waiting.delete(content)
  })
  const { connectionRecord } = await agent.modules.didcomm.oob.receiveInvitationFromUrl(invitationUrl, { label: 'plain wallet' })
  if (!connectionRecord) throw new Error('the invitation asks for no connection')
  const connectionId = connectionRecord.id
  await agent.modules.didcomm.connections.returnWhenIsConnected(connectionId, { timeoutMs: CONNECT_TIMEOUT_MS })
  // As WalletPeer and phone wallets do: receive through live pickup, reopened whenever the socket closes.
  await new LivePickupChannel(agent).afterConnect(connectionId)
  if (greeted) {
    await pTimeout(greetingReceived, {
      milliseconds: GREETING_TIMEOUT_MS,
      message: `no greeting on connection ${connectionId} within ${GREETING_TIMEOUT_MS} ms`,
    })
  }
  return {
    roundTrip: async (text) => {
      const content = `${text} ${randomBytes(4).toString('hex')}`
      const echoed = new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no echo of '${content}' within 30 s`)), 30_000)
        waiting.set(content, () => {
          clearTimeout(timer)
          resolve()
        })
      })
      await agent.modules.didcomm.basicMessages.sendMessage(connectionId, content)
      await echoed
    },
  }
}
