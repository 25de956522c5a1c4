/**
 * For the end-to-end authentication test and its benchmark: issuing a credential of Parley's own
 * to a wallet peer (a credential offer's short URL), and authenticating from the contextual menu
 * (select the item, answer the proof request, wait for the agent's reply).
 */
import { nextOfferReceived, nextProofRequestReceived } from '@parley/agent-node/testing/credential-stack'
import type { WalletPeer } from '../../agent-node/src/wallet-peer/WalletPeer.ts'

/** Calls agent-node's admin API at `adminUrl`; `body` makes it a JSON POST. @throws on a non-2xx answer. */
export async function adminCall<T>(adminUrl: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(
    `${adminUrl}${path}`,
    body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
  )
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`)
  return (await response.json()) as T
}

/** Issues `wallet` a credential of `credentialDefinitionId` with `claims`; resolves once the wallet holds it. */
export async function issueCredential(
  adminUrl: string,
  wallet: WalletPeer,
  credentialDefinitionId: string,
  claims: Record<string, string>,
): Promise<void> {
  const offer = await adminCall<{ shortUrl: string }>(adminUrl, '/v1/credential-offer', {
    credentialDefinitionId,
    claims: Object.entries(claims).map(([name, value]) => ({ name, value })),
  })
  const received = nextOfferReceived(wallet)
  await wallet.connect(offer.shortUrl)
  await wallet.acceptCredentialOffer((await received).id, 90_000)
}

/**
 * Selects menu option `option` on `connectionId`, answers the proof request that follows with
 * `answer` (default: present as the wallet can) and resolves with the agent's next text there.
 */
export async function authenticateFromMenu(
  wallet: WalletPeer,
  connectionId: string,
  option: string,
  answer: (proofExchangeRecordId: string) => Promise<unknown> = (id) => wallet.answerProofRequest(id),
): Promise<string> {
  const request = nextProofRequestReceived(wallet)
  const reply = wallet.nextText((message) => message.connectionId === connectionId, 60_000)
  await wallet.performContextualMenuOption(connectionId, option)
  await answer((await request).id)
  return (await reply).content
}
