/**
 * ParleyKeyManagementService: the NaCl box of DIDComm v1 envelopes, byte for byte against
 * libsodium; Ed25519 and X25519 keys made without Node's key generation (no job left for the
 * garbage collector, see cryptoBox.ts `boxSeal`); everything else delegated to Credo's
 * NodeKeyManagementService.
 */
import { createHook } from 'node:async_hooks'
import { generateKeyPair } from 'node:crypto'
import { promisify } from 'node:util'
import { type AgentContext, Kms } from '@credo-ts/core'
import { NodeInMemoryKeyManagementStorage } from '@credo-ts/node'
import sodium from 'libsodium-wrappers'
import { beforeAll, describe, expect, it } from 'vitest'
import { ed25519PublicToX25519, ed25519SecretToX25519 } from '../../src/wallet/kms/cryptoBox.ts'
import { ParleyKeyManagementService } from '../../src/wallet/kms/index.ts'

const agentContext = { contextCorrelationId: 'default' } as AgentContext
const storage = new NodeInMemoryKeyManagementStorage()
const kms = new ParleyKeyManagementService(storage)

const b64u = (value: string) => Uint8Array.from(Buffer.from(value, 'base64url'))
const toB64u = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url')
const utf8 = (text: string) => new TextEncoder().encode(text)

interface TestKey {
  keyId: string
  /** Ed25519 public JWK as the KMS returns it. */
  publicJwk: Kms.KmsJwkPublicOkp
  /** The X25519 public JWK Credo's envelope service would pass (Credo's own conversion). */
  x25519Jwk: Kms.KmsJwkPublicOkp & { crv: 'X25519' }
  /** libsodium's key pairs for the same key. */
  edSecretKey: Uint8Array
  xSecretKey: Uint8Array
  xPublicKey: Uint8Array
}

async function createEd25519Key(): Promise<TestKey> {
  const { keyId, publicJwk } = await kms.createKey(agentContext, { type: { kty: 'OKP', crv: 'Ed25519' } })
  const privateJwk = await storage.get(agentContext, keyId)
  if (privateJwk?.kty !== 'OKP') throw new Error('expected a stored OKP key')
  const { privateKey: edSecretKey, publicKey } = sodium.crypto_sign_seed_keypair(b64u(privateJwk.d))
  expect(toB64u(publicKey)).toBe(publicJwk.x)
  const x25519Jwk = Kms.PublicJwk.fromPublicKey({ kty: 'OKP', crv: 'Ed25519', publicKey })
    .convertTo(Kms.X25519PublicJwk)
    .toJson() as TestKey['x25519Jwk']
  return {
    keyId,
    publicJwk: publicJwk as Kms.KmsJwkPublicOkp,
    x25519Jwk,
    edSecretKey,
    xSecretKey: sodium.crypto_sign_ed25519_sk_to_curve25519(edSecretKey),
    xPublicKey: sodium.crypto_sign_ed25519_pk_to_curve25519(publicKey),
  }
}

const box = (keyAgreement: Record<string, unknown>) =>
  ({ keyAgreement: { algorithm: 'ECDH-HSALSA20', ...keyAgreement } }) as Kms.KmsEncryptOptions['key']
const openBox = (keyAgreement: Record<string, unknown>) =>
  ({ keyAgreement: { algorithm: 'ECDH-HSALSA20', ...keyAgreement } }) as Kms.KmsDecryptOptions['key']
const XSALSA = { algorithm: 'XSALSA20-POLY1305' } as const

let alice: TestKey
let bob: TestKey
let carol: TestKey

beforeAll(async () => {
  await sodium.ready
  alice = await createEd25519Key()
  bob = await createEd25519Key()
  carol = await createEd25519Key()
})

describe('Ed25519 -> X25519 conversion', () => {
  it('matches crypto_sign_ed25519_sk_to_curve25519 and _pk_to_curve25519 for KMS-created keys', async () => {
    for (const key of [alice, bob, carol]) {
      expect(ed25519SecretToX25519(key.edSecretKey.subarray(0, 32))).toEqual(key.xSecretKey)
      expect(ed25519PublicToX25519(b64u(key.publicJwk.x))).toEqual(key.xPublicKey)
      // Credo's own Ed25519 -> X25519 public conversion agrees too.
      expect(b64u(key.x25519Jwk.x)).toEqual(key.xPublicKey)
    }
  })
})

describe('authcrypt (crypto_box_easy)', () => {
  it('our encrypt equals libsodium crypto_box_easy with the same nonce', async () => {
    const data = sodium.randombytes_buf(32)
    const { encrypted, iv } = await kms.encrypt(agentContext, {
      key: box({ keyId: alice.keyId, externalPublicJwk: bob.x25519Jwk }),
      encryption: XSALSA,
      data,
    })
    expect(iv).toHaveLength(24)
    expect(encrypted).toHaveLength(16 + data.length)
    const expected = sodium.crypto_box_easy(data, iv as Uint8Array, bob.xPublicKey, alice.xSecretKey)
    expect(Uint8Array.from(encrypted)).toEqual(expected)
    expect(sodium.crypto_box_open_easy(encrypted, iv as Uint8Array, alice.xPublicKey, bob.xSecretKey)).toEqual(data)
  })

  it('uses a fresh nonce on every call', async () => {
    const options = { key: box({ keyId: alice.keyId, externalPublicJwk: bob.x25519Jwk }), encryption: XSALSA }
    const first = await kms.encrypt(agentContext, { ...options, data: utf8('same') })
    const second = await kms.encrypt(agentContext, { ...options, data: utf8('same') })
    expect(first.iv).not.toEqual(second.iv)
    expect(first.encrypted).not.toEqual(second.encrypted)
  })

  it('honours a caller-given 24-byte iv and rejects another length', async () => {
    const iv = sodium.randombytes_buf(24)
    const data = utf8('with my nonce')
    const key = box({ keyId: alice.keyId, externalPublicJwk: bob.x25519Jwk })
    const result = await kms.encrypt(agentContext, { key, encryption: { ...XSALSA, iv }, data })
    expect(result.iv).toEqual(iv)
    const expected = sodium.crypto_box_easy(data, iv, bob.xPublicKey, alice.xSecretKey)
    expect(Uint8Array.from(result.encrypted)).toEqual(expected)
    await expect(kms.encrypt(agentContext, { key, encryption: { ...XSALSA, iv: new Uint8Array(12) }, data })).rejects.toThrow(
      Kms.KeyManagementError,
    )
  })

  it('opens libsodium crypto_box_easy output', async () => {
    const data = utf8('{"hello":"from libsodium"}')
    const nonce = sodium.randombytes_buf(24)
    const encrypted = sodium.crypto_box_easy(data, nonce, bob.xPublicKey, alice.xSecretKey)
    const { data: opened } = await kms.decrypt(agentContext, {
      key: openBox({ keyId: bob.keyId, externalPublicJwk: alice.x25519Jwk }),
      decryption: { ...XSALSA, iv: nonce },
      encrypted,
    })
    expect(Uint8Array.from(opened)).toEqual(data)
  })

  it('works with a stored X25519 key as is', async () => {
    const { keyId } = await kms.createKey(agentContext, { type: { kty: 'OKP', crv: 'X25519' } })
    const privateJwk = await storage.get(agentContext, keyId)
    if (privateJwk?.kty !== 'OKP') throw new Error('expected a stored OKP key')
    const secretKey = b64u(privateJwk.d)
    const publicKey = b64u(privateJwk.x)
    const data = utf8('x25519 sender')
    const { encrypted, iv } = await kms.encrypt(agentContext, {
      key: box({ keyId, externalPublicJwk: bob.x25519Jwk }),
      encryption: XSALSA,
      data,
    })
    const expected = sodium.crypto_box_easy(data, iv as Uint8Array, bob.xPublicKey, secretKey)
    expect(Uint8Array.from(encrypted)).toEqual(expected)

    const nonce = sodium.randombytes_buf(24)
    const { data: opened } = await kms.decrypt(agentContext, {
      key: openBox({ keyId, externalPublicJwk: alice.x25519Jwk }),
      decryption: { ...XSALSA, iv: nonce },
      encrypted: sodium.crypto_box_easy(data, nonce, publicKey, alice.xSecretKey),
    })
    expect(Uint8Array.from(opened)).toEqual(data)
  })
})

describe('anoncrypt (crypto_box_seal)', () => {
  it('our sealed box opens with libsodium crypto_box_seal_open', async () => {
    const data = sodium.randombytes_buf(32)
    const result = await kms.encrypt(agentContext, {
      key: box({ externalPublicJwk: bob.x25519Jwk }),
      encryption: XSALSA,
      data,
    })
    expect(result.iv).toBeUndefined()
    expect(result.encrypted).toHaveLength(48 + data.length)
    expect(sodium.crypto_box_seal_open(result.encrypted, bob.xPublicKey, bob.xSecretKey)).toEqual(data)
  })

  it('opens libsodium crypto_box_seal output', async () => {
    const data = utf8('GJ1SzoWzavQYfNL9XkaJdrQejfztN4XqdsiV4ct3LXKL')
    const { data: opened } = await kms.decrypt(agentContext, {
      key: openBox({ keyId: bob.keyId }),
      decryption: XSALSA,
      encrypted: sodium.crypto_box_seal(data, bob.xPublicKey),
    })
    expect(Uint8Array.from(opened)).toEqual(data)
  })

  it('refuses an iv, which a sealed box cannot use', async () => {
    await expect(
      kms.encrypt(agentContext, {
        key: box({ externalPublicJwk: bob.x25519Jwk }),
        encryption: { ...XSALSA, iv: new Uint8Array(24) },
        data: utf8('x'),
      }),
    ).rejects.toThrow(/iv cannot be given/)
  })
})

describe('failures are KeyManagementErrors', () => {
  it('tampered authcrypt ciphertext, wrong recipient, wrong sender', async () => {
    const data = utf8('secret')
    const { encrypted, iv } = await kms.encrypt(agentContext, {
      key: box({ keyId: alice.keyId, externalPublicJwk: bob.x25519Jwk }),
      encryption: XSALSA,
      data,
    })
    const tampered = Uint8Array.from(encrypted)
    tampered[tampered.length - 1] = (tampered[tampered.length - 1] as number) ^ 1
    const attempts = [
      { keyId: bob.keyId, sender: alice, encrypted: tampered },
      { keyId: carol.keyId, sender: alice, encrypted },
      { keyId: bob.keyId, sender: carol, encrypted },
    ]
    for (const attempt of attempts) {
      const result = kms.decrypt(agentContext, {
        key: openBox({ keyId: attempt.keyId, externalPublicJwk: attempt.sender.x25519Jwk }),
        decryption: { ...XSALSA, iv },
        encrypted: attempt.encrypted,
      })
      await expect(result).rejects.toThrow(Kms.KeyManagementError)
      await expect(result).rejects.toThrow(/failed authentication/)
    }
  })

  it('tampered or truncated sealed box, wrong recipient', async () => {
    const { encrypted } = await kms.encrypt(agentContext, {
      key: box({ externalPublicJwk: bob.x25519Jwk }),
      encryption: XSALSA,
      data: utf8('secret'),
    })
    const tampered = Uint8Array.from(encrypted)
    tampered[40] = (tampered[40] as number) ^ 1
    const attempts = [
      { keyId: bob.keyId, encrypted: tampered },
      { keyId: bob.keyId, encrypted: encrypted.subarray(0, 47) },
      { keyId: carol.keyId, encrypted },
    ]
    for (const attempt of attempts) {
      await expect(
        kms.decrypt(agentContext, {
          key: openBox({ keyId: attempt.keyId }),
          decryption: XSALSA,
          encrypted: attempt.encrypted,
        }),
      ).rejects.toThrow(Kms.KeyManagementError)
    }
  })

  it('unknown key id -> KeyManagementKeyNotFoundError', async () => {
    await expect(
      kms.encrypt(agentContext, {
        key: box({ keyId: 'no-such-key', externalPublicJwk: bob.x25519Jwk }),
        encryption: XSALSA,
        data: utf8('x'),
      }),
    ).rejects.toThrow(Kms.KeyManagementKeyNotFoundError)
    await expect(
      kms.decrypt(agentContext, {
        key: openBox({ keyId: 'no-such-key' }),
        decryption: XSALSA,
        encrypted: new Uint8Array(64),
      }),
    ).rejects.toThrow(Kms.KeyManagementKeyNotFoundError)
  })

  it('authcrypt decrypt without iv', async () => {
    await expect(
      kms.decrypt(agentContext, {
        key: openBox({ keyId: bob.keyId, externalPublicJwk: alice.x25519Jwk }),
        decryption: XSALSA,
        encrypted: new Uint8Array(64),
      }),
    ).rejects.toThrow(/Missing iv/)
  })

  it('a P-256 key or an Ed25519 external key -> KeyManagementAlgorithmNotSupportedError', async () => {
    const { keyId } = await kms.createKey(agentContext, { type: { kty: 'EC', crv: 'P-256' } })
    await expect(
      kms.encrypt(agentContext, {
        key: box({ keyId, externalPublicJwk: bob.x25519Jwk }),
        encryption: XSALSA,
        data: utf8('x'),
      }),
    ).rejects.toThrow(Kms.KeyManagementAlgorithmNotSupportedError)
    await expect(
      kms.encrypt(agentContext, {
        key: box({ keyId: alice.keyId, externalPublicJwk: bob.publicJwk }),
        encryption: XSALSA,
        data: utf8('x'),
      }),
    ).rejects.toThrow(Kms.KeyManagementAlgorithmNotSupportedError)
  })

  it('a key whose JWK restricts it to signing is refused for key agreement', async () => {
    const seed = sodium.randombytes_buf(32)
    const { publicKey } = sodium.crypto_sign_seed_keypair(seed)
    const { keyId } = await kms.importKey(agentContext, {
      privateJwk: { kty: 'OKP', crv: 'Ed25519', d: toB64u(seed), x: toB64u(publicKey), use: 'sig' },
    })
    await expect(
      kms.encrypt(agentContext, {
        key: box({ keyId, externalPublicJwk: bob.x25519Jwk }),
        encryption: XSALSA,
        data: utf8('x'),
      }),
    ).rejects.toThrow(/does not allow key derivation/)
  })

  it('either half of the pair alone -> KeyManagementAlgorithmNotSupportedError', async () => {
    await expect(
      kms.encrypt(agentContext, {
        key: box({ keyId: alice.keyId, externalPublicJwk: bob.x25519Jwk }),
        encryption: { algorithm: 'C20P' },
        data: utf8('x'),
      }),
    ).rejects.toThrow(Kms.KeyManagementAlgorithmNotSupportedError)
    await expect(
      kms.encrypt(agentContext, {
        key: { privateJwk: { kty: 'oct', k: toB64u(new Uint8Array(32)) } },
        encryption: XSALSA,
        data: utf8('x'),
      }),
    ).rejects.toThrow(Kms.KeyManagementAlgorithmNotSupportedError)
  })
})

describe('capabilities and delegation', () => {
  it('isOperationSupported: the box pair yes, either half alone no, Node algorithms unchanged', () => {
    const hsalsa = { algorithm: 'ECDH-HSALSA20', externalPublicJwk: { kty: 'OKP', crv: 'X25519', x: 'AA' } } as const
    const supported = (operation: Kms.KmsOperation) => kms.isOperationSupported(agentContext, operation)
    expect(supported({ operation: 'encrypt', encryption: XSALSA, keyAgreement: hsalsa })).toBe(true)
    expect(supported({ operation: 'decrypt', decryption: XSALSA, keyAgreement: { ...hsalsa, keyId: 'k' } })).toBe(true)
    expect(supported({ operation: 'encrypt', encryption: XSALSA })).toBe(false)
    expect(supported({ operation: 'encrypt', encryption: { algorithm: 'C20P' }, keyAgreement: hsalsa })).toBe(false)
    expect(supported({ operation: 'decrypt', decryption: XSALSA })).toBe(false)
    expect(supported({ operation: 'encrypt', encryption: { algorithm: 'C20P' } })).toBe(true)
    expect(supported({ operation: 'sign', algorithm: 'EdDSA' })).toBe(true)
    expect(supported({ operation: 'createKey', type: { kty: 'OKP', crv: 'Ed25519' } })).toBe(true)
  })

  it('C20P content encryption (the envelope body) still goes through Node', async () => {
    const key = { privateJwk: { kty: 'oct', k: toB64u(sodium.randombytes_buf(32)) } } as const
    const aad = utf8('protected header')
    const data = utf8('{"@type":"https://didcomm.org/basicmessage/1.0/message"}')
    const encryption = { algorithm: 'C20P', aad } as const
    const { encrypted, iv, tag } = await kms.encrypt(agentContext, { key, encryption, data })
    const { data: opened } = await kms.decrypt(agentContext, {
      key,
      decryption: { algorithm: 'C20P', aad, iv: iv as Uint8Array, tag: tag as Uint8Array },
      encrypted,
    })
    expect(Uint8Array.from(opened)).toEqual(data)
  })

  it('EdDSA signing with a KMS key verifies with libsodium', async () => {
    const data = utf8('signed by the agent')
    const { signature } = await kms.sign(agentContext, { keyId: alice.keyId, algorithm: 'EdDSA', data })
    expect(sodium.crypto_sign_verify_detached(signature, data, b64u(alice.publicJwk.x))).toBe(true)
  })
})

describe('key creation', () => {
  /** The async resource types created while `run` runs (Node's async key generation is `KEYPAIRGENREQUEST`). */
  async function asyncResourcesOf(run: () => Promise<unknown>): Promise<string[]> {
    const types: string[] = []
    const hook = createHook({ init: (_id, type) => void types.push(type) }).enable()
    try {
      await run()
    } finally {
      hook.disable()
    }
    return types
  }

  it('makes Ed25519 and X25519 keys without a Node key-generation job, each distinct and usable', async () => {
    // the detection works: Node's own async generation shows up
    expect(await asyncResourcesOf(() => promisify(generateKeyPair)('ed25519'))).toContain('KEYPAIRGENREQUEST')

    const created: Kms.KmsCreateKeyReturn<Kms.KmsCreateKeyTypeOkp>[] = []
    const types = await asyncResourcesOf(async () => {
      for (const crv of ['Ed25519', 'X25519', 'Ed25519', 'X25519'] as const)
        created.push(await kms.createKey(agentContext, { type: { kty: 'OKP', crv } }))
    })
    expect(types).not.toContain('KEYPAIRGENREQUEST')
    expect(new Set(created.map((key) => key.publicJwk.x)).size).toBe(4)
    for (const { keyId, publicJwk } of created) {
      const privateJwk = await storage.get(agentContext, keyId)
      if (privateJwk?.kty !== 'OKP') throw new Error('expected a stored OKP key')
      expect(privateJwk.kid).toBe(keyId)
      const derived =
        publicJwk.crv === 'Ed25519'
          ? sodium.crypto_sign_seed_keypair(b64u(privateJwk.d)).publicKey
          : sodium.crypto_scalarmult_base(b64u(privateJwk.d))
      expect(toB64u(derived)).toBe(publicJwk.x)
      expect(privateJwk.x).toBe(publicJwk.x)
    }
  })

  it('refuses a key id already used, and makes other key types as Node does', async () => {
    const { keyId } = await kms.createKey(agentContext, { type: { kty: 'OKP', crv: 'Ed25519' } })
    await expect(kms.createKey(agentContext, { keyId, type: { kty: 'OKP', crv: 'X25519' } })).rejects.toThrow(Kms.KeyManagementError)
    const p256 = await kms.createKey(agentContext, { type: { kty: 'EC', crv: 'P-256' } })
    expect(p256.publicJwk).toMatchObject({ kty: 'EC', crv: 'P-256', kid: p256.keyId })
  })
})
