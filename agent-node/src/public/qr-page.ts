/**
 * The invitation landing page: the full URL of the page itself (which carries `?oob=`) as a QR
 * code, plus the link for wallets on the same device. Default target of `GET /invitation`.
 */
import QRCode from 'qrcode'
import { InvalidInputError } from '../errors/index.ts'

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`)

/** The invitation URL holds more than a QR code can (about 2,950 bytes at the lowest error correction). */
export class InvitationTooLongError extends InvalidInputError {
  constructor(length: number) {
    super(`the invitation URL (${length} characters) is too long for a QR code; use a short URL`, undefined, 'invitation_too_long')
  }
}

/** QR code options of `renderQrCode`: PNG width in pixels, quiet zone in modules, error correction, colours (`rrggbb`). */
export interface QrCodeOptions {
  width?: number
  margin?: number
  errorCorrectionLevel?: 'L' | 'M' | 'Q' | 'H'
  dark?: string
  light?: string
}

/**
 * The QR code of `text`, as SVG text or PNG bytes.
 * @throws InvitationTooLongError when `text` does not fit in a QR code.
 */
export async function renderQrCode(text: string, format: 'svg', options?: QrCodeOptions): Promise<string>
export async function renderQrCode(text: string, format: 'png', options?: QrCodeOptions): Promise<Buffer>
export async function renderQrCode(text: string, format: 'svg' | 'png', options: QrCodeOptions = {}): Promise<string | Buffer> {
  const qrOptions = {
    errorCorrectionLevel: options.errorCorrectionLevel ?? 'L',
    margin: options.margin ?? 2,
    ...(options.width ? { width: options.width } : {}),
    color: { ...(options.dark ? { dark: `#${options.dark}` } : {}), ...(options.light ? { light: `#${options.light}` } : {}) },
  }
  try {
    return format === 'svg'
      ? await QRCode.toString(text, { ...qrOptions, type: 'svg' })
      : await QRCode.toBuffer(text, { ...qrOptions, type: 'png' })
  } catch (error) {
    // qrcode's only input error: "The amount of data is too big to be stored in a QR Code".
    if (error instanceof Error && /too big/i.test(error.message)) throw new InvitationTooLongError(text.length)
    throw error
  }
}

/**
 * Renders the page for `invitationUrl` with `label` as heading.
 * @throws InvitationTooLongError when the URL does not fit in a QR code.
 */
export async function renderInvitationPage(invitationUrl: string, label: string): Promise<string> {
  const svg = await renderQrCode(invitationUrl, 'svg')
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Connect to ${escapeHtml(label)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:2rem auto;padding:0 1rem;text-align:center}
svg{width:100%;height:auto}a{word-break:break-all;font-size:.8rem}</style></head>
<body><h1>Connect to ${escapeHtml(label)}</h1><p>Scan this code with your DIDComm wallet.</p>${svg}
<p><a href="${escapeHtml(invitationUrl)}">Open in a wallet on this device</a></p></body></html>`
}
