/**
 * Resolves did:web and did:webvh DIDs over HTTP(S), for anyone's DID (the wallet resolving an
 * issuer, a verifier resolving a credential's issuer):
 * - did:web: GET `did.json`, checked to be a DID document whose `id` is the DID;
 * - did:webvh: GET `did.jsonl`, every entry verified by didwebvh-ts (hash chain, SCID, update-key
 *   proofs), and the resolved `id` must be the DID asked for.
 * URLs come from the DID alone (`identifier.ts`: https, http only for loopback hosts); redirects
 * are refused and each request times out, so a peer-supplied identifier cannot steer the fetch
 * elsewhere or hang it. Requests go through the `fetch` given: agent-node passes its outbound
 * guard's (`http/outbound-guard.ts`), so a DID cannot make it call its own network.
 */
import { resolveDIDFromLog, type DIDDoc, type DIDLog } from 'didwebvh-ts'
import { z } from 'zod'
import { publicationUrl } from './identifier.ts'
import { ed25519Verifier } from './keys.ts'
import { readBoundedText } from '../http/bounded-body.ts'

/** Milliseconds one HTTP request of a resolution may take. */
const RESOLUTION_TIMEOUT_MS = 10_000

/** Largest body read in a resolution, in bytes (a DID log, a credential definition: kilobytes). */
export const MAX_RESOLUTION_BYTES = 1024 * 1024

/** The `fetch` a resolution calls (the global one by default). */
export type ResolutionFetch = (url: URL, init: { redirect: 'error'; signal: AbortSignal }) => Promise<Response>

/** A resolution failure: `notFound` (nothing published there) or `invalid` (bad DID, bad document, bad log). */
export class DidResolutionError extends Error {
  constructor(
    readonly code: 'notFound' | 'invalid',
    message: string,
  ) {
    super(message)
    this.name = 'DidResolutionError'
  }
}

const Service = z.looseObject({ id: z.string(), type: z.union([z.string(), z.array(z.string())]), serviceEndpoint: z.unknown() })

/** The parts of a DID document this agent reads; anything else passes through. */
const DidDocumentShape = z.looseObject({ id: z.string(), service: z.array(Service).optional() })

const LogEntry = z.looseObject({ versionId: z.string(), versionTime: z.string(), parameters: z.looseObject({}), state: z.looseObject({}) })

/**
 * Resolves `did` (no query or fragment) to its current DID document, fetching with `fetch`.
 * @throws DidResolutionError
 */
export async function resolveDidDocument(
  did: string,
  fetch: ResolutionFetch = globalThis.fetch,
): Promise<DIDDoc & z.infer<typeof DidDocumentShape>> {
  let url: URL
  try {
    url = publicationUrl(did)
  } catch (error) {
    throw new DidResolutionError('invalid', (error as Error).message)
  }
  const body = await get(url, fetch)
  const document = did.startsWith('did:webvh:') ? await verifiedLogDocument(did, body) : parseJson(body, url)
  const parsed = DidDocumentShape.safeParse(document)
  if (!parsed.success) throw new DidResolutionError('invalid', `${url} is not a DID document: ${parsed.error.issues[0]?.message}`)
  if (parsed.data.id !== did) throw new DidResolutionError('invalid', `${url} holds the document of ${parsed.data.id}, not ${did}`)
  return parsed.data as DIDDoc & z.infer<typeof DidDocumentShape>
}

/**
 * GETs `url` (no redirects, bounded time and size) and returns its body as text.
 * @throws DidResolutionError `notFound` on 404/410, `invalid` on any other failure.
 */
export async function get(url: URL, fetch: ResolutionFetch = globalThis.fetch): Promise<string> {
  try {
    const response = await fetch(url, { redirect: 'error', signal: AbortSignal.timeout(RESOLUTION_TIMEOUT_MS) })
    if (response.status === 404 || response.status === 410) throw new DidResolutionError('notFound', `GET ${url}: ${response.status}`)
    if (!response.ok) throw new DidResolutionError('invalid', `GET ${url}: ${response.status}`)
    return await boundedText(response, url)
  } catch (error) {
    if (error instanceof DidResolutionError) throw error
    throw new DidResolutionError('invalid', `GET ${url} failed: ${(error as Error).message}`)
  }
}

/** The body of `response`, refusing more than MAX_RESOLUTION_BYTES. */
async function boundedText(response: Response, url: URL): Promise<string> {
  const text = await readBoundedText(response, MAX_RESOLUTION_BYTES)
  if (text === undefined) throw new DidResolutionError('invalid', `GET ${url}: body larger than ${MAX_RESOLUTION_BYTES} bytes`)
  return text
}

/** `body` as JSON. @throws DidResolutionError */
export function parseJson(body: string, url: URL): unknown {
  try {
    return JSON.parse(body)
  } catch {
    throw new DidResolutionError('invalid', `${url} is not JSON`)
  }
}

async function verifiedLogDocument(did: string, body: string): Promise<DIDDoc> {
  const lines = body.split('\n').filter((line) => line.trim() !== '')
  const log = z
    .array(LogEntry)
    .min(1)
    .safeParse(lines.map((line) => parseJson(line, publicationUrl(did))))
  if (!log.success) throw new DidResolutionError('invalid', `the did:webvh log of ${did} is malformed: ${log.error.issues[0]?.message}`)
  try {
    const resolved = await resolveDIDFromLog(log.data as unknown as DIDLog, {
      verifier: ed25519Verifier,
      requestedDid: did,
      scid: did.split(':')[2],
    })
    if (resolved.meta.error) throw new Error(resolved.meta.problemDetails?.detail ?? resolved.meta.error)
    if (resolved.meta.deactivated) throw new Error(`${did} is deactivated`)
    return resolved.doc
  } catch (error) {
    throw new DidResolutionError('invalid', `the did:webvh log of ${did} does not verify: ${(error as Error).message}`)
  }
}
