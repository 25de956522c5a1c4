/**
 * The 2060.io message classes parse and validate inbound JSON as Credo does on receipt
 * (`JsonTransformer.fromJSON` + class-validator): well-formed messages from the protocols' wire
 * format load; malformed ones throw `ClassValidationError`, which Credo answers with a problem
 * report instead of handling the message.
 */
import { ClassValidationError, JsonTransformer } from '@credo-ts/core'
import { describe, expect, it } from 'vitest'
import { CallAcceptMessage, CallEndMessage, CallOfferMessage } from '../../src/didcomm/protocols/calls/index.ts'
import { ShareMediaMessage } from '../../src/didcomm/protocols/media-sharing/index.ts'
import { EMrtdDataMessage, MrzDataMessage } from '../../src/didcomm/protocols/mrtd/index.ts'
import { MessageReceiptsMessage, RequestReceiptsMessage } from '../../src/didcomm/protocols/receipts/index.ts'
import { ProfileMessage } from '../../src/didcomm/protocols/user-profile/index.ts'

const id = '1f0b7c1e-8d7a-4d6e-9b39-7f4b0a5f3c21'
const shareMedia = {
  '@type': 'https://didcomm.org/media-sharing/1.0/share-media',
  '@id': id,
  sent_time: '2026-01-01T10:00:00.000Z',
  items: [{ '@id': 'a', attachment_id: '0', metadata: { width: 10 } }],
  '~attach': [{ '@id': '0', 'mime-type': 'image/png', data: { links: ['https://x.example/a.png'] } }],
}

describe('2060.io message classes', () => {
  it.each([
    ['share-media', ShareMediaMessage, shareMedia],
    [
      'message-receipts',
      MessageReceiptsMessage,
      {
        '@type': MessageReceiptsMessage.type.messageTypeUri,
        '@id': id,
        receipts: [{ message_id: 'm', state: 'viewed', timestamp: 1767261600 }],
      },
    ],
    [
      'request-receipts',
      RequestReceiptsMessage,
      {
        '@type': RequestReceiptsMessage.type.messageTypeUri,
        '@id': id,
        requested_receipts: [{ message_type: 'https://didcomm.org/basicmessage/1.0/message' }],
      },
    ],
    ['profile', ProfileMessage, { '@type': ProfileMessage.type.messageTypeUri, '@id': id, profile: { displayName: 'Alice' } }],
    ['call-offer', CallOfferMessage, { '@type': CallOfferMessage.type.messageTypeUri, '@id': id, call_type: 'video', parameters: {} }],
    ['call-end', CallEndMessage, { '@type': CallEndMessage.type.messageTypeUri, '@id': id, '~thread': { thid: 'offer-0001' } }],
    ['mrz-data', MrzDataMessage, { '@type': MrzDataMessage.type.messageTypeUri, '@id': id, mrzData: 'P<UTO' }],
    ['emrtd-data', EMrtdDataMessage, { '@type': EMrtdDataMessage.type.messageTypeUri, '@id': id, dataGroups: { DG1: 'YQ==' } }],
  ] as const)('loads a well-formed %s', (_name, messageClass, json) => {
    expect(JsonTransformer.fromJSON(json, messageClass as never)).toBeInstanceOf(messageClass)
  })

  it('reads receipt timestamps as Unix seconds and writes them back so', () => {
    const message = JsonTransformer.fromJSON(
      {
        '@type': MessageReceiptsMessage.type.messageTypeUri,
        '@id': id,
        receipts: [{ message_id: 'm', state: 'received', timestamp: 1767261600 }],
      },
      MessageReceiptsMessage,
    )
    expect(message.receipts[0]!.timestamp).toEqual(new Date('2026-01-01T10:00:00.000Z'))
    expect(message.toJSON().receipts).toEqual([{ message_id: 'm', state: 'received', timestamp: 1767261600 }])
  })

  it.each([
    ['share-media without items', ShareMediaMessage, { ...shareMedia, items: [] }],
    ['share-media with an item lacking attachment_id', ShareMediaMessage, { ...shareMedia, items: [{ '@id': 'a' }] }],
    [
      'share-media with ciphering lacking algorithm',
      ShareMediaMessage,
      { ...shareMedia, items: [{ '@id': 'a', attachment_id: '0', ciphering: {} }] },
    ],
    [
      'a receipt with an unknown state',
      MessageReceiptsMessage,
      { '@type': MessageReceiptsMessage.type.messageTypeUri, '@id': id, receipts: [{ message_id: 'm', state: 'lost', timestamp: 1 }] },
    ],
    [
      'a receipt without message_id',
      MessageReceiptsMessage,
      { '@type': MessageReceiptsMessage.type.messageTypeUri, '@id': id, receipts: [{ state: 'viewed', timestamp: 1 }] },
    ],
    ['a profile that is not an object', ProfileMessage, { '@type': ProfileMessage.type.messageTypeUri, '@id': id, profile: 'Alice' }],
    ['a call-offer without parameters', CallOfferMessage, { '@type': CallOfferMessage.type.messageTypeUri, '@id': id, call_type: 'video' }],
    [
      'a call-offer with a bad start time',
      CallOfferMessage,
      { '@type': CallOfferMessage.type.messageTypeUri, '@id': id, call_type: 'video', parameters: {}, offer_start_time: 'soon' },
    ],
    [
      'a call-accept with array parameters',
      CallAcceptMessage,
      { '@type': CallAcceptMessage.type.messageTypeUri, '@id': id, parameters: [1] },
    ],
    ['mrz-data with a number', MrzDataMessage, { '@type': MrzDataMessage.type.messageTypeUri, '@id': id, mrzData: 42 }],
    [
      'emrtd-data with a non-string group',
      EMrtdDataMessage,
      { '@type': EMrtdDataMessage.type.messageTypeUri, '@id': id, dataGroups: { DG1: 1 } },
    ],
  ] as const)('rejects %s', (_name, messageClass, json) => {
    expect(() => JsonTransformer.fromJSON(json, messageClass as never)).toThrow(ClassValidationError)
  })
})
