/**
 * A scripted agent-node for the workers tests: opens the tunnel with a signed handshake, sends
 * event frames, records every frame the Worker sends and waits for the ones a test expects.
 */
import { exports } from 'cloudflare:workers'
import {
  DownstreamFrame,
  handshakeHeaders,
  parseFrame,
  signTunnelHandshake,
  type AckFrame,
  type CommandFrame,
  commandConnectionId,
  type EventFrame,
  type TunnelCommand,
} from '@parley/shared/tunnel'
import type { AgentEvent } from '@parley/shared/events'
import { TEST_TUNNEL_SECRET } from './constants.ts'

/** A command frame carrying `send-message`. */
export type SendMessageFrame = CommandFrame & { command: Extract<TunnelCommand, { name: 'send-message' }> }

/** Anything with a `fetch`, e.g. the main Worker or a service binding to an auxiliary one. */
export type WorkerFetcher = { fetch(request: Request): Promise<Response> }

/** A `GET /tunnel` upgrade request carrying `headers`. */
export function tunnelRequest(headers: Record<string, string> = {}): Request {
  return new Request('http://worker/tunnel', { headers: { upgrade: 'websocket', ...headers } })
}

/** Headers of a valid handshake signed with `secret` at `now`, naming agent-node instance `instance` when given. */
export async function signedHeaders(secret = TEST_TUNNEL_SECRET, now = Date.now(), instance?: string): Promise<Record<string, string>> {
  return handshakeHeaders(await signTunnelHandshake(secret, now), instance)
}

export interface AgentOptions {
  /** Answer every command with a successful `command-result` (as agent-node does). Default true. */
  confirmCommands?: boolean
  worker?: WorkerFetcher
  /** The agent-node instance it claims to be (`x-parley-instance`); none: the `default` instance. */
  instance?: string
}

interface Waiter {
  match: (frame: DownstreamFrame) => boolean
  resolve: (frame: DownstreamFrame) => void
}

export class TestAgent {
  /** Every frame received, in order; `invalid` holds messages that were not a DownstreamFrame. */
  readonly frames: DownstreamFrame[] = []
  readonly invalid: string[] = []
  readonly closed: Promise<CloseEvent>
  private readonly waiters: Waiter[] = []

  private constructor(
    readonly socket: WebSocket,
    confirmCommands: boolean,
  ) {
    this.closed = new Promise((resolve) => socket.addEventListener('close', resolve))
    socket.addEventListener('message', (message) => {
      const parsed = parseFrame(DownstreamFrame, message.data as string)
      if ('error' in parsed) {
        this.invalid.push(String(message.data))
        return
      }
      const { frame } = parsed
      this.frames.push(frame)
      if (frame.kind === 'command' && confirmCommands) {
        this.sendRaw(JSON.stringify({ kind: 'command-result', id: frame.id, ok: true, result: { id: crypto.randomUUID() } }))
      }
      for (const waiter of [...this.waiters]) {
        if (waiter.match(frame)) {
          this.waiters.splice(this.waiters.indexOf(waiter), 1)
          waiter.resolve(frame)
        }
      }
    })
  }

  /** Opens an authenticated tunnel. @throws when the Worker does not upgrade. */
  static async connect({ confirmCommands = true, worker = exports.default, instance }: AgentOptions = {}): Promise<TestAgent> {
    const response = await worker.fetch(tunnelRequest(await signedHeaders(undefined, undefined, instance)))
    const socket = response.webSocket
    if (response.status !== 101 || !socket) throw new Error(`tunnel refused: ${response.status} ${await response.text()}`)
    socket.accept()
    return new TestAgent(socket, confirmCommands)
  }

  sendRaw(data: string): void {
    this.socket.send(data)
  }

  /** Sends `event` as frame `id` with sequence number `seq`; returns the frame. */
  sendEvent(event: AgentEvent, seq: number, id: string = crypto.randomUUID()): EventFrame {
    const connectionId = event.type === 'message-received' ? event.message.connectionId : event.connectionId
    const frame: EventFrame = { kind: 'event', id, connectionId, seq, event }
    this.sendRaw(JSON.stringify(frame))
    return frame
  }

  /** The first frame (already received or yet to come) that `match` accepts. */
  next(match: (frame: DownstreamFrame) => boolean): Promise<DownstreamFrame> {
    const seen = this.frames.find(match)
    if (seen) return Promise.resolve(seen)
    return new Promise((resolve) => this.waiters.push({ match, resolve }))
  }

  /** Resolves once `count` acks for event `id` have arrived. */
  async acks(id: string, count = 1): Promise<AckFrame[]> {
    const acks = () => this.frames.filter((frame): frame is AckFrame => frame.kind === 'ack' && frame.id === id)
    while (acks().length < count)
      await new Promise((resolve) => this.waiters.push({ match: (f) => f.kind === 'ack' && f.id === id, resolve }))
    return acks()
  }

  /** The next `send-message` command for `connectionId` whose idempotency key is `key`. */
  command(connectionId: string, key: string): Promise<SendMessageFrame> {
    return this.anyCommand(connectionId, key).then((frame) => {
      if (frame.command.name !== 'send-message') throw new Error(`command ${key} is ${frame.command.name}, not send-message`)
      return frame as SendMessageFrame
    })
  }

  /** The next command of any name for `connectionId` whose idempotency key is `key`. */
  anyCommand(connectionId: string, key: string): Promise<CommandFrame> {
    return this.next(
      (frame) => frame.kind === 'command' && commandConnectionId(frame.command) === connectionId && frame.idempotencyKey === key,
    ) as Promise<CommandFrame>
  }

  close(): Promise<CloseEvent> {
    this.socket.close(1000, 'test done')
    return this.closed
  }
}

/** A `send-message` command frame of a text `content` to `connectionId`, with fresh ids. */
export function sendTextCommand(connectionId: string, content: string): CommandFrame {
  return {
    kind: 'command',
    id: crypto.randomUUID(),
    idempotencyKey: `test:${crypto.randomUUID()}`,
    command: { name: 'send-message', message: { connectionId, type: 'text', content } },
  }
}

/** A text `message-received` event from the peer of `connectionId`. */
export function textMessage(connectionId: string, content: string, threadId: string | null = null): AgentEvent {
  return {
    type: 'message-received',
    message: { type: 'text', id: crypto.randomUUID(), connectionId, timestamp: Math.floor(Date.now() / 1000), threadId, content },
  }
}

/** A `connection-state-updated` event. */
export function connectionState(connectionId: string, state: 'request-received' | 'completed'): AgentEvent {
  return { type: 'connection-state-updated', connectionId, invitationId: crypto.randomUUID(), state }
}

/** A `message-state-updated` event (one the conversation only records). */
export function messageState(connectionId: string): AgentEvent {
  return {
    type: 'message-state-updated',
    connectionId,
    messageId: crypto.randomUUID(),
    timestamp: Math.floor(Date.now() / 1000),
    state: 'delivered',
  }
}

/** A `profile` message from the peer of `connectionId` (what a wallet sends after connecting). */
export function profileMessage(connectionId: string, profile: { displayName?: string; preferredLanguage?: string }): AgentEvent {
  return {
    type: 'message-received',
    message: {
      type: 'profile',
      id: crypto.randomUUID(),
      connectionId,
      timestamp: Math.floor(Date.now() / 1000),
      threadId: null,
      ...profile,
    },
  }
}
