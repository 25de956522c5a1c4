/**
 * Travel-document reading (2060.io's MRTD 1.0 protocol on the wire):
 * - `mrz-data-request` / `emrtd-data-request`, controller to user: ask the wallet to scan the
 *   passport's machine-readable zone, or to read its chip (eMRTD);
 * - `mrz-data-submit` / `emrtd-data-submit`, user to controller: the result, answering the request
 *   (`threadId` is the request's id). `state` is `submitted` with the data, or `declined` /
 *   `timeout` when the user refused or did not answer in time.
 * The data are passed through as the wallet sent them (`raw`); Parley neither parses the MRZ nor
 * verifies the chip's signatures.
 */
import { z } from 'zod'
import { MessageEnvelopeBase, SendMessageBase } from './common.ts'

/** Outcome reported with submitted MRTD data. */
export const MrtdSubmitState = z.enum(['submitted', 'declined', 'timeout', 'error'])
export type MrtdSubmitState = z.infer<typeof MrtdSubmitState>

export const MrzDataRequestMessageBody = SendMessageBase.extend({ type: z.literal('mrz-data-request') })
export const EMrtdDataRequestMessageBody = SendMessageBase.extend({ type: z.literal('emrtd-data-request') })
export type MrzDataRequestMessageBody = z.infer<typeof MrzDataRequestMessageBody>
export type EMrtdDataRequestMessageBody = z.infer<typeof EMrtdDataRequestMessageBody>

/** The MRZ as scanned: one string, or one string per line. */
export const MrzData = z.object({ raw: z.union([z.string(), z.array(z.string())]) })

/** The chip's data groups, base64 each, keyed by name (`COM`, `DG1`, `DG2`, ..., `SOD`). */
export const EMrtdDataGroups = z.object({ raw: z.record(z.string(), z.string()) })

export const MrzDataSubmitMessageEnvelope = MessageEnvelopeBase.extend({
  type: z.literal('mrz-data-submit'),
  state: MrtdSubmitState,
  mrzData: MrzData.optional(),
})
export const EMrtdDataSubmitMessageEnvelope = MessageEnvelopeBase.extend({
  type: z.literal('emrtd-data-submit'),
  state: MrtdSubmitState,
  dataGroups: EMrtdDataGroups.optional(),
})
export type MrzDataSubmitMessageEnvelope = z.infer<typeof MrzDataSubmitMessageEnvelope>
export type EMrtdDataSubmitMessageEnvelope = z.infer<typeof EMrtdDataSubmitMessageEnvelope>
