/**
 * More than one agent-node on one PostgreSQL database (issue 17, "More than one agent-node").
 * Every process is an instance with an id (`INSTANCE_ID`, or a random UUID per start) and holds
 * leases in the shared database (`leases.ts`):
 *
 * - `instance:<id>`, its liveness: what a dead instance left (inbox envelopes) is adopted by a
 *   live one once this lease has expired;
 * - `delivery:<subscriber>`: only the holder delivers that subscriber's events
 *   (`LeasedDelivery.ts`), the others stand by and take over when it expires;
 * - `public-did`, `recovery`: creating the public DID and the start-up recovery run in one
 *   instance at a time (`withLease`).
 *
 * Leases last `LEASE_TTL_SECONDS` (default 15) and are renewed every third of that; a graceful
 * stop releases them, so a restart or a rolling deploy hands over at once, a kill after the TTL.
 * Instances also tell each other about new work with `signal` / `onSignal` (PostgreSQL
 * LISTEN/NOTIFY on one channel, `parley_cluster`, `database/dialect.ts`); every renewal round
 * (`onTick`) re-reads what a lost notification could have hidden.
 *
 * On SQLite there is only ever one process (the data folder's lock, `data-dir/`): at open every
 * lease of another holder is dropped (it is a previous run that died), so a restart after a
 * crash takes everything over at once.
 */
import { randomUUID } from 'node:crypto'
import { listen, notify } from '../database/dialect.ts'
import type { Database } from '../database/index.ts'
import type { Logger } from '../logging/index.ts'
import { instanceLeaseName, LeaseStore } from './leases.ts'

/** What a holder of a wanted lease does when it gets it and when it loses it. */
export interface LeaseHandlers {
  gained(): Promise<void> | void
  lost(): Promise<void> | void
}

export interface ClusterOptions {
  /** This process's id (`INSTANCE_ID`); a random UUID when absent. Unique among running instances. */
  instanceId?: string
  /** How long a lease lasts without renewal, in milliseconds (`LEASE_TTL_SECONDS` × 1000). */
  ttlMs: number
  logger: Logger
}

interface Wanted {
  handlers: LeaseHandlers
  held: boolean
  /** Until when the lease is ours for sure (the last successful claim's time + ttl), epoch ms. */
  validUntil: number
  /** The handlers run one after another, in the order of the transitions. */
  chain: Promise<void>
}

/** The one PostgreSQL notification channel instances signal on; the signal's own channel is in the payload. */
const SIGNAL_CHANNEL = 'parley_cluster'

/** How long `withLease` waits between attempts to take a lease someone else holds, in milliseconds. */
const WAIT_FOR_LEASE_MS = 250

export class Cluster {
  private readonly wanted = new Map<string, Wanted>()
  private readonly tickListeners = new Set<() => Promise<void> | void>()
  /** Listeners of `onSignal`, by channel; all channels share one `LISTEN` (`SIGNAL_CHANNEL`). */
  private readonly signalListeners = new Map<string, Array<(data: string) => void>>()
  private unlisten?: () => Promise<void>
  private timer?: NodeJS.Timeout
  private ticking?: Promise<void>
  private stopped = false

  private constructor(
    private readonly database: Database,
    private readonly leases: LeaseStore,
    readonly instanceId: string,
    readonly ttlMs: number,
    private readonly logger: Logger,
  ) {}

  /**
   * Opens the lease table, takes this instance's own lease and starts renewing leases every
   * third of the TTL.
   * @throws when the database cannot be written.
   */
  static async open(database: Database, options: ClusterOptions): Promise<Cluster> {
    const leases = await LeaseStore.open(database)
    const instanceId = options.instanceId ?? randomUUID()
    const cluster = new Cluster(database, leases, instanceId, options.ttlMs, options.logger)
    if (database.dialect === 'sqlite') await leases.dropOthers(instanceId)
    await leases.claim(instanceLeaseName(instanceId), instanceId, options.ttlMs)
    cluster.timer = setInterval(() => void cluster.tick(), Math.max(1, Math.floor(options.ttlMs / 3)))
    cluster.timer.unref()
    return cluster
  }

  /**
   * Whether other instances may share the database (PostgreSQL); on SQLite this process is the
   * only one, so nothing another instance did can be missed.
   */
  get shared(): boolean {
    return this.database.dialect !== 'sqlite'
  }

  /** Whether this instance holds lease `name` (as of its last renewal). */
  holds(name: string): boolean {
    return this.wanted.get(name)?.held ?? false
  }

  /**
   * Keeps trying to hold lease `name`: `gained` runs when this instance gets it (now, or when the
   * holder lets it go or dies), `lost` when a renewal finds another holder. Resolves after the
   * first attempt and, if it succeeded, after `gained`.
   */
  async want(name: string, handlers: LeaseHandlers): Promise<void> {
    if (this.wanted.has(name)) throw new Error(`lease '${name}' is already wanted`)
    this.wanted.set(name, { handlers, held: false, validUntil: 0, chain: Promise.resolve() })
    await this.renew(name)
    await this.wanted.get(name)?.chain
  }

  /** Stops wanting lease `name` and releases it if held (its `lost` handler does not run). */
  async unwant(name: string): Promise<void> {
    const entry = this.wanted.get(name)
    if (!entry) return
    this.wanted.delete(name)
    await entry.chain
    if (entry.held) await this.leases.release(name, this.instanceId)
  }

  /**
   * Runs `task` while holding lease `name`, waiting for it as long as another instance holds it
   * (one that dies lets it go when its lease expires). The lease is renewed every third of the
   * TTL while the task runs, and released afterwards.
   */
  async withLease<T>(name: string, task: () => Promise<T>): Promise<T> {
    let logged = false
    while (!(await this.leases.claim(name, this.instanceId, this.ttlMs))) {
      if (this.stopped) throw new Error(`stopped while waiting for lease '${name}'`)
      if (!logged) this.logger.info({ lease: name }, 'waiting for another instance to finish')
      logged = true
      await new Promise((resolve) => setTimeout(resolve, WAIT_FOR_LEASE_MS))
    }
    const renewal = setInterval(
      () => {
        this.leases.claim(name, this.instanceId, this.ttlMs).catch((error: unknown) => {
          this.logger.warn({ err: error, lease: name }, 'could not renew a lease')
        })
      },
      Math.max(1, Math.floor(this.ttlMs / 3)),
    )
    try {
      return await task()
    } finally {
      clearInterval(renewal)
      await this.leases.release(name, this.instanceId)
    }
  }

  /** Whether instance `instanceId` holds its instance lease (it runs, or died less than a TTL ago). */
  async isAlive(instanceId: string): Promise<boolean> {
    return (await this.leases.holder(instanceLeaseName(instanceId))) !== undefined
  }

  /** Calls `listener` after each renewal round (every third of the TTL). It must not throw. */
  onTick(listener: () => Promise<void> | void): () => void {
    this.tickListeners.add(listener)
    return () => this.tickListeners.delete(listener)
  }

  /** Tells every other instance `data` on `channel` (best effort: see `onSignal`). */
  async signal(channel: string, data: string): Promise<void> {
    try {
      await notify(this.database, SIGNAL_CHANNEL, `${this.instanceId}\n${channel}\n${data}`)
    } catch (error) {
      this.logger.warn({ err: error, channel }, 'could not notify the other instances; they find the work at their next round')
    }
  }

  /** Calls `listener` with the `data` of each `signal` on `channel` from another instance. */
  onSignal(channel: string, listener: (data: string) => void): void {
    this.signalListeners.set(channel, [...(this.signalListeners.get(channel) ?? []), listener])
    this.unlisten ??= listen(
      this.database,
      SIGNAL_CHANNEL,
      (payload) => {
        const [from, signalled, ...data] = payload.split('\n')
        if (from === this.instanceId) return
        for (const each of this.signalListeners.get(signalled ?? '') ?? []) each(data.join('\n'))
      },
      (error) => this.logger.warn({ err: error }, 'listening for other instances failed; reconnecting'),
    )
  }

  /** Stops renewing, releases every lease of this instance (the others take over at once). */
  async stop(): Promise<void> {
    this.stopped = true
    clearInterval(this.timer)
    await this.ticking
    await this.unlisten?.()
    for (const entry of this.wanted.values()) await entry.chain
    this.wanted.clear()
    try {
      await this.leases.releaseAll(this.instanceId)
    } catch (error) {
      this.logger.warn({ err: error }, 'could not release the leases; the other instances take over when they expire')
    }
  }

  /** One renewal round: this instance's lease, every wanted lease, then the tick listeners. */
  private tick(): Promise<void> {
    if (this.ticking || this.stopped) return this.ticking ?? Promise.resolve()
    this.ticking = (async () => {
      try {
        await this.leases.claim(instanceLeaseName(this.instanceId), this.instanceId, this.ttlMs)
      } catch (error) {
        this.logger.warn({ err: error }, 'could not renew this instance lease')
      }
      for (const name of [...this.wanted.keys()]) await this.renew(name)
      for (const listener of this.tickListeners) {
        try {
          await listener()
        } catch (error) {
          this.logger.warn({ err: error }, 'cluster round failed')
        }
      }
    })().finally(() => {
      this.ticking = undefined
    })
    return this.ticking
  }

  /** Claims or renews lease `name`; runs `gained` / `lost` on a change. */
  private async renew(name: string): Promise<void> {
    const entry = this.wanted.get(name)
    if (!entry || this.stopped) return
    const started = Date.now()
    let held: boolean
    try {
      held = await this.leases.claim(name, this.instanceId, this.ttlMs, started)
      if (held) entry.validUntil = started + this.ttlMs
    } catch (error) {
      // unknown: keep what we had while it cannot have expired
      held = entry.held && Date.now() < entry.validUntil
      this.logger.warn({ err: error, lease: name, held }, 'could not renew a lease')
    }
    if (held === entry.held || this.wanted.get(name) !== entry) return
    entry.held = held
    this.logger.info({ lease: name, instanceId: this.instanceId }, held ? 'lease taken' : 'lease lost to another instance')
    const handler = held ? entry.handlers.gained : entry.handlers.lost
    entry.chain = entry.chain.then(async () => {
      try {
        await handler()
      } catch (error) {
        this.logger.error({ err: error, lease: name }, 'lease handler failed')
        if (!held) return
        // could not start what the lease is for: let it go, the next round tries again
        entry.held = false
        await this.leases.release(name, this.instanceId).catch(() => undefined)
      }
    })
  }
}
