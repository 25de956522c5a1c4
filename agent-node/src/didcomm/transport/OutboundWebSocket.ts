/**
 * The WebSocket class Credo's outbound WebSocket transport dials peers with (its
 * `agentDependencies.WebSocketClass`), made safe against what a peer's endpoint sends back.
 * Credo's `DidCommWsOutboundTransport` throws from its `'message'` listener when a frame is not
 * JSON or not a JWE; a throw there escapes `ws`'s socket data handler as an uncaught exception,
 * so any peer whose DID document names a `ws(s)://` endpoint could end agent-node with one text
 * frame. Here:
 * - an exception from a `'message'` listener is caught, logged (rate-limited) and the socket is
 *   closed with 1007 (invalid frame payload data);
 * - frames are bounded by `maxPayload` (the inbound envelope limit), not ws's 100 MiB default.
 */
import WebSocket, { type ClientOptions } from 'ws'
import type { ClientRequestArgs } from 'node:http'
import type { RateLimitedLogger } from '../../logging/rate-limited.ts'

/** RFC 6455 §7.4.1: data inconsistent with the type of the message. */
const CLOSE_INVALID_PAYLOAD = 1007

/** A `ws` WebSocket class with `maxPayload` bytes per frame and guarded `'message'` listeners. */
export function guardedWebSocketClass(maxPayload: number, log: RateLimitedLogger): typeof WebSocket {
  // Typed as ws's class: it only dials (ws reserves a null address for server-side sockets).
  return class GuardedWebSocket extends WebSocket {
    constructor(
      address: string | URL,
      protocols?: string | string[] | ClientOptions | ClientRequestArgs,
      options?: ClientOptions | ClientRequestArgs,
    ) {
      if (typeof protocols === 'object' && !Array.isArray(protocols)) super(address, { maxPayload, ...protocols })
      else super(address, protocols, { maxPayload, ...options })
    }

    override emit(event: string | symbol, ...args: unknown[]): boolean {
      if (event !== 'message') return super.emit(event, ...args)
      try {
        return super.emit(event, ...args)
      } catch (error) {
        log.log(
          'warn',
          'outbound-ws-message',
          { err: error, url: this.url ? new URL(this.url).origin : undefined },
          'refused a frame from a peer on an outbound DIDComm WebSocket',
        )
        this.close(CLOSE_INVALID_PAYLOAD, 'invalid DIDComm message')
        return true
      }
    }
  } as unknown as typeof WebSocket
}
