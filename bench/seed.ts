/** Stored data for the benchmarks that need an agent-node with much of it (startup, connection-list). */
import { randomUUID } from 'node:crypto'
import type { Agent } from '@credo-ts/core'
import {
  DidCommConnectionRecord,
  DidCommConnectionRepository,
  DidCommDidExchangeRole,
  DidCommDidExchangeState,
  DidCommHandshakeProtocol,
} from '@credo-ts/didcomm'
import { inBatches } from './stats.ts'

/**
 * Saves `count` completed DID Exchange connections (agent-node the responder; DIDs and labels
 * numbered from 0) through `agent`'s connection repository, `parallel` at once, as real Credo
 * records (so sealed at rest as any other); returns them in order.
 */
export async function seedConnections(
  agent: Pick<Agent, 'context' | 'dependencyManager'>,
  count: number,
  parallel: number,
): Promise<DidCommConnectionRecord[]> {
  const repository = agent.dependencyManager.resolve(DidCommConnectionRepository)
  return inBatches(count, parallel, async (i) => {
    const record = new DidCommConnectionRecord({
      state: DidCommDidExchangeState.Completed,
      role: DidCommDidExchangeRole.Responder,
      did: `did:peer:4bench-our-${i}`,
      theirDid: `did:peer:4bench-their-${i}`,
      theirLabel: `bench wallet ${i}`,
      threadId: randomUUID(),
      outOfBandId: randomUUID(),
      protocol: DidCommHandshakeProtocol.DidExchange,
    })
    await repository.save(agent.context, record)
    return record
  })
}
