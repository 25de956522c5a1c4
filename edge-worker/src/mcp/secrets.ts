/**
 * Encryption at rest of the `secret` values users enter for user-controlled MCP servers (manifest
 * spec "Authentication" rule 7): AES-256-GCM through WebCrypto, keyed by the Worker secret
 * `MCP_SECRETS_KEY` (any string; its SHA-256 is the key, so use a long random one, e.g.
 * `openssl rand -base64 32`). Without the secret no `secret` value can be stored: the
 * configuration flow says MCP_CONFIG_UNAVAILABLE for a server that asks for one.
 *
 * Sealed form: `v1.<base64url IV>.<base64url ciphertext+tag>`, a fresh 96-bit IV each time.
 */

/** Encrypts and decrypts secret values. */
export interface SecretBox {
  seal(plain: string): Promise<string>
  /** @throws when `sealed` was not sealed with this key or was altered. */
  open(sealed: string): Promise<string>
}

const VERSION = 'v1'

function toBase64Url(bytes: Uint8Array): string {
  let binary = ''
  for (const byte of bytes) binary += String.fromCharCode(byte)
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '')
}

function fromBase64Url(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text.replaceAll('-', '+').replaceAll('_', '/'))
  return Uint8Array.from(binary, (char) => char.charCodeAt(0))
}

/** The box of `MCP_SECRETS_KEY`'s value, or undefined when it is unset or empty. */
export function secretBox(keyText: unknown): SecretBox | undefined {
  if (typeof keyText !== 'string' || keyText === '') return undefined
  const key = crypto.subtle
    .digest('SHA-256', new TextEncoder().encode(keyText))
    .then((digest) => crypto.subtle.importKey('raw', digest, 'AES-GCM', false, ['encrypt', 'decrypt']))
  return {
    async seal(plain) {
      const iv = crypto.getRandomValues(new Uint8Array(12))
      const cipher = await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, await key, new TextEncoder().encode(plain))
      return `${VERSION}.${toBase64Url(iv)}.${toBase64Url(new Uint8Array(cipher))}`
    },
    async open(sealed) {
      const [version, iv, cipher] = sealed.split('.')
      if (version !== VERSION || !iv || !cipher) throw new Error('not a sealed secret value')
      const plain = await crypto.subtle.decrypt({ name: 'AES-GCM', iv: fromBase64Url(iv) }, await key, fromBase64Url(cipher))
      return new TextDecoder().decode(plain)
    },
  }
}
