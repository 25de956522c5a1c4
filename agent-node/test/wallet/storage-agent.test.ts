import {
  Agent,
  AgentContext,
  CredoError,
  DependencyManager,
  InjectionSymbols,
  StorageUpdateService,
  StorageVersionRecord,
} from '@credo-ts/core'
import { agentDependencies } from '@credo-ts/node'
import { describe, expect, it } from 'vitest'
import { DrizzleStorageModule, DrizzleStorageService, ensureStorageVersion } from '../../src/wallet/storage/index.ts'
import { openRecordStore } from '../support/record-store.ts'
import { dialects, useTempDatabases } from '../support/temp-databases.ts'

function agentOn(storage: DrizzleStorageService) {
  return new Agent({ dependencies: agentDependencies, modules: { storage: new DrizzleStorageModule(storage) } })
}

describe.each(dialects)('on %s', (dialect) => {
  const databases = useTempDatabases('parley-storage-agent-', dialect)

  async function openStorage() {
    return openRecordStore(await databases.open())
  }

  describe('DrizzleStorageModule', () => {
    it('lets a fresh store initialize an agent, at the current framework storage version', async () => {
      const storage = await openStorage()
      const agent = agentOn(storage)
      await agent.initialize()

      const updates = agent.dependencyManager.resolve(StorageUpdateService)
      expect(await updates.getCurrentStorageVersion(agent.context)).toBe(StorageVersionRecord.frameworkStorageVersion)
      expect(await updates.isUpToDate(agent.context)).toBe(true)

      // Credo's own repositories work on it
      const saved = await agent.genericRecords.save({ content: { hello: 'world' }, tags: { topic: 'greeting' } })
      expect((await agent.genericRecords.findAllByQuery({ topic: 'greeting' })).map((r) => r.id)).toEqual([saved.id])
      await agent.shutdown()
    })

    it('reopens the same store without touching its version record', async () => {
      const first = agentOn(await openStorage())
      await first.initialize()
      const seeded = await ensureStorageVersion(first.context, first.dependencyManager.resolve(InjectionSymbols.StorageService))
      await first.shutdown()

      const reopened = await openStorage()
      const second = agentOn(reopened)
      await second.initialize()
      const kept = await reopened.getById(second.context, StorageVersionRecord, StorageVersionRecord.storageVersionRecordId)
      expect(kept.createdAt.getTime()).toBe(seeded.createdAt.getTime())
      expect(kept.updatedAt?.getTime()).toBe(seeded.updatedAt?.getTime())
      await second.shutdown()
    })

    it('is needed: without seeding, Credo reads a fresh store as 0.1 and refuses to start', async () => {
      const dependencyManager = new DependencyManager()
      dependencyManager.registerInstance(InjectionSymbols.StorageService, await openStorage())
      const agent = new Agent({ dependencies: agentDependencies }, dependencyManager)
      await expect(agent.initialize()).rejects.toThrow(/not up to date/)
    })

    it('refuses to register over another storage service', () => {
      const dependencyManager = new DependencyManager()
      dependencyManager.registerInstance(InjectionSymbols.StorageService, {})
      const module = new DrizzleStorageModule({} as DrizzleStorageService)
      expect(() => module.register(dependencyManager)).toThrow(CredoError)
    })
  })

  describe('ensureStorageVersion', () => {
    it('seeds a context once and leaves an existing record at any version alone', async () => {
      const storage = await openStorage()
      const fresh = new AgentContext({ dependencyManager: new DependencyManager(), contextCorrelationId: 'fresh' })
      const seeded = await ensureStorageVersion(fresh, storage)
      expect(seeded.storageVersion).toBe(StorageVersionRecord.frameworkStorageVersion)
      expect((await ensureStorageVersion(fresh, storage)).createdAt.getTime()).toBe(seeded.createdAt.getTime())

      const old = new AgentContext({ dependencyManager: new DependencyManager(), contextCorrelationId: 'old' })
      await storage.save(old, new StorageVersionRecord({ storageVersion: '0.4' }))
      expect((await ensureStorageVersion(old, storage)).storageVersion).toBe('0.4')
    })
  })
})
