/**
 * How a wallet without an endpoint of its own receives (Pickup v2, Aries RFC 0685, live mode):
 * over the socket it opened to the agent. After DID Exchange the agent closes that socket (the
 * `complete` message has no return route), so the channel is opened again, with live delivery
 * on and the queue collected, whenever the wallet's socket to the agent closes. `WalletPeer`
 * receives through it, and so do the plain Credo wallets of the chat benchmark.
 */
import type { Agent } from '@credo-ts/core'
import { type DidCommMessagePickupApi, type DidCommOutboundWebSocketClosedEvent, DidCommTransportEventTypes } from '@credo-ts/didcomm'
import type { Logger } from '../logging/index.ts'

/**
 * How long `afterConnect` waits for the agent to close the DID Exchange socket before opening the
 * live channel itself (agents that keep the socket open never send the close), in milliseconds.
 */
const SOCKET_SETTLE_MS = 500

/** Milliseconds between attempts to reopen the live pickup channel while the agent is unreachable. */
const LIVE_CHANNEL_RETRY_MS = 500

/** What the channel needs of a Credo agent: its events, whether it runs, and the message pickup API. */
export type PickupAgent = Pick<Agent, 'events' | 'isInitialized'> & { modules: { didcomm: { messagePickup: DidCommMessagePickupApi } } }

/**
 * Keeps the live pickup channel of every connection of one wallet agent open until `stop`, or
 * until the agent shuts down: its transports close every socket then, and a channel reopened on
 * a stopped agent could only fail and be retried forever.
 */
export class LivePickupChannel {
  /** Live-channel openings under way, per connection, so concurrent triggers share one. */
  private readonly opening = new Map<string, Promise<void>>()
  /**
   * Connections whose socket closed while an opening was under way: that opening may have used
   * the socket that just closed (a slow agent closes the DID Exchange socket late), so the
   * channel is opened again once it ends.
   */
  private readonly reopenAfter = new Set<string>()
  private stopped = false

  constructor(
    private readonly agent: PickupAgent,
    private readonly logger?: Logger,
  ) {
    agent.events.on<DidCommOutboundWebSocketClosedEvent>(DidCommTransportEventTypes.DidCommOutboundWebSocketClosedEvent, ({ payload }) => {
      if (payload.connectionId && this.active) void this.open(payload.connectionId, { socketClosed: true })
    })
  }

  /**
   * Opens the channel of a connection whose DID Exchange just completed: once the agent closed the
   * exchange socket (the close event opens it then), or after `SOCKET_SETTLE_MS` if it did not.
   * Resolves when the channel is open.
   */
  async afterConnect(connectionId: string): Promise<void> {
    const closed = new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, SOCKET_SETTLE_MS)
      const listener = ({ payload }: DidCommOutboundWebSocketClosedEvent) => {
        if (payload.connectionId !== connectionId) return
        clearTimeout(timer)
        this.agent.events.off(DidCommTransportEventTypes.DidCommOutboundWebSocketClosedEvent, listener)
        resolve()
      }
      this.agent.events.on(DidCommTransportEventTypes.DidCommOutboundWebSocketClosedEvent, listener)
    })
    await closed
    await this.open(connectionId)
  }

  /** Stops reopening (call before the agent shuts down). */
  stop(): void {
    this.stopped = true
  }

  /** Whether channels are still kept open: not stopped, and the agent still running. */
  private get active(): boolean {
    return !this.stopped && this.agent.isInitialized
  }

  /**
   * Reopens the socket to the agent in live pickup mode and collects anything queued meanwhile;
   * retries every `LIVE_CHANNEL_RETRY_MS` while the agent is unreachable, as a phone wallet does.
   * `socketClosed`: called because the socket closed; an opening under way is followed by another.
   */
  private open(connectionId: string, { socketClosed = false } = {}): Promise<void> {
    const under = this.opening.get(connectionId)
    if (under && socketClosed) this.reopenAfter.add(connectionId)
    if (under) return under
    const pickup = this.agent.modules.didcomm.messagePickup
    const opening = (async () => {
      try {
        await pickup.setLiveDeliveryMode({ connectionId, protocolVersion: 'v2', liveDelivery: true })
        await pickup.pickupMessages({ connectionId, protocolVersion: 'v2' })
      } catch (error) {
        if (!this.active) return
        this.logger?.warn({ connectionId, err: error }, 'could not open the live pickup channel; trying again')
        setTimeout(() => {
          if (this.active) void this.open(connectionId)
        }, LIVE_CHANNEL_RETRY_MS).unref()
      } finally {
        this.opening.delete(connectionId)
        if (this.reopenAfter.delete(connectionId) && this.active) void this.open(connectionId)
      }
    })()
    this.opening.set(connectionId, opening)
    return opening
  }
}
