/** Base64url (RFC 4648 §5, no padding) encoding of bytes, with `btoa` (Node and workerd). */
export function base64UrlEncode(bytes: Uint8Array): string {
  let binary = ''
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000))
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '')
}

/** Decodes base64url (padding optional); throws `Error` on characters outside the alphabet. */
export function base64UrlDecode(text: string): Uint8Array {
  if (!/^[A-Za-z0-9_-]*=*$/.test(text)) throw new Error('invalid base64url')
  const binary = atob(text.replaceAll('-', '+').replaceAll('_', '/').replace(/=+$/, ''))
  const bytes = new Uint8Array(binary.length)
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i)
  return bytes
}
