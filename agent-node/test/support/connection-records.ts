/**
 * Connection records made without a wallet, for the tests and benchmarks that need many of them
 * (connection pages, start-up, connection-list): real Credo `DidCommConnectionRecord`s saved through
 * the agent's repository, so sealed at rest as any other.
 */
import { randomUUID } from 'node:crypto'
import type { Agent } from '@credo-ts/core'
import {
  DidCommConnectionRecord,
  DidCommConnectionRepository,
  DidCommDidExchangeRole,
  DidCommDidExchangeState,
  DidCommHandshakeProtocol,
} from '@credo-ts/didcomm'
import { inBatches } from '../../../bench/stats.ts'

/** How `connectionRecord` differs from a completed connection. */
export interface ConnectionRecordOptions {
  /** The DID Exchange state; default completed. */
  state?: DidCommDidExchangeState
  /** The peer's DID gone, as after a hang-up (the connection reads `terminated`). */
  hungUp?: boolean
  /** Default now. */
  createdAt?: Date
}

/**
 * Connection number `i` (DIDs and label numbered with it), agent-node the responder, completed
 * unless `options` say otherwise; not saved.
 */
export function connectionRecord(i: number, options: ConnectionRecordOptions = {}): DidCommConnectionRecord {
  const record = new DidCommConnectionRecord({
    state: options.state ?? DidCommDidExchangeState.Completed,
    role: DidCommDidExchangeRole.Responder,
    did: `did:peer:4seed-our-${i}`,
    theirDid: options.hungUp ? undefined : `did:peer:4seed-their-${i}`,
    theirLabel: `seeded wallet ${i}`,
    threadId: randomUUID(),
    outOfBandId: randomUUID(),
    protocol: DidCommHandshakeProtocol.DidExchange,
  })
  if (options.createdAt) record.createdAt = options.createdAt
  return record
}

/** Saves `record` through `agent`'s connection repository. */
export async function saveConnection(agent: Pick<Agent, 'context' | 'dependencyManager'>, record: DidCommConnectionRecord): Promise<void> {
  await agent.dependencyManager.resolve(DidCommConnectionRepository).save(agent.context, record)
}

/**
 * Saves `count` completed connections (`connectionRecord(0)` …) through `agent`'s connection
 * repository, `parallel` at once; returns them in order.
 */
export async function seedConnections(
  agent: Pick<Agent, 'context' | 'dependencyManager'>,
  count: number,
  parallel: number,
): Promise<DidCommConnectionRecord[]> {
  return inBatches(count, parallel, async (i) => {
    const record = connectionRecord(i)
    await saveConnection(agent, record)
    return record
  })
}
