/**
 * The invitation landing page: the full URL of the page itself (which carries `?oob=`) as a QR
 * code, plus the link for wallets on the same device. Default target of `GET /invitation`.
 */
import QRCode from 'qrcode'

const escape = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`)

/** Renders the page for `invitationUrl` with `label` as heading. */
export async function renderInvitationPage(invitationUrl: string, label: string): Promise<string> {
  const svg = await QRCode.toString(invitationUrl, { type: 'svg', errorCorrectionLevel: 'L', margin: 2 })
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Connect to ${escape(label)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:2rem auto;padding:0 1rem;text-align:center}
svg{width:100%;height:auto}a{word-break:break-all;font-size:.8rem}</style></head>
<body><h1>Connect to ${escape(label)}</h1><p>Scan this code with your DIDComm wallet.</p>${svg}
<p><a href="${escape(invitationUrl)}">Open in a wallet on this device</a></p></body></html>`
}
