/**
 * The public DID document (W3C DID Core 1.0): one Ed25519 key for authentication and assertion,
 * its X25519 counterpart for key agreement, a DIDComm v1 `did-communication` service per agent
 * endpoint (Aries RFC 0067, the form Credo resolves), and the `anoncreds` service of 2060.io's
 * did:web AnonCreds method (public repo `2060-io/did-web-anoncreds-method`: objects are
 * `<did>?service=anoncreds&relativeRef=/<path>/<id>`, fetched at `<serviceEndpoint>/<path>/<id>`).
 */
import type { DIDDoc, ServiceEndpoint } from 'didwebvh-ts'
import { ed25519Multikey, x25519MultikeyFromEd25519 } from './keys.ts'

/** Fragment of the AnonCreds service: object ids select it with `?service=anoncreds`. */
export const ANONCREDS_SERVICE = 'anoncreds'

/** Type of the AnonCreds service, as 2060.io's agents publish it. */
const ANONCREDS_SERVICE_TYPE = 'AnonCredsRegistry'

/** Path of the AnonCreds service under the public URL; objects are served below it. */
export const ANONCREDS_PATH = '/anoncreds/v1'

/** Fragment of the Ed25519 verification method (`<did>#key-1`); the KMS holds its private key. */
export const SIGNING_KEY_FRAGMENT = 'key-1'

/** What the document announces besides its key. */
export interface PublicDidServices {
  /** DIDComm endpoints (config.endpoints), in order of preference. */
  endpoints: string[]
  /** The agent's public URL; the AnonCreds service endpoint is `<publicUrl>/anoncreds/v1`. */
  publicUrl: string
}

/** The services of the document of `did` (`did` may hold didwebvh-ts's `{SCID}` placeholder). */
export function publicDidServices(did: string, { endpoints, publicUrl }: PublicDidServices): ServiceEndpoint[] {
  return [
    ...endpoints.map((serviceEndpoint, priority) => ({
      id: `${did}#did-communication${priority === 0 ? '' : `-${priority}`}`,
      type: 'did-communication',
      priority,
      recipientKeys: [`${did}#key-agreement-1`],
      routingKeys: [],
      accept: ['didcomm/aip2;env=rfc19'],
      serviceEndpoint,
    })),
    { id: `${did}#${ANONCREDS_SERVICE}`, type: ANONCREDS_SERVICE_TYPE, serviceEndpoint: `${publicUrl}${ANONCREDS_PATH}` },
  ]
}

/** The whole document of `did` for Ed25519 key `publicKey` and `services`. */
export function publicDidDocument(did: string, publicKey: Uint8Array, services: PublicDidServices): DIDDoc {
  return {
    '@context': ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/multikey/v1'],
    id: did,
    verificationMethod: [
      { id: `${did}#${SIGNING_KEY_FRAGMENT}`, type: 'Multikey', controller: did, publicKeyMultibase: ed25519Multikey(publicKey) },
      { id: `${did}#key-agreement-1`, type: 'Multikey', controller: did, publicKeyMultibase: x25519MultikeyFromEd25519(publicKey) },
    ],
    authentication: [`${did}#${SIGNING_KEY_FRAGMENT}`],
    assertionMethod: [`${did}#${SIGNING_KEY_FRAGMENT}`],
    keyAgreement: [`${did}#key-agreement-1`],
    service: publicDidServices(did, services),
  }
}
