/**
 * Reading attributes from a JSON Schema Credential: inline and referenced schemas, and the
 * documents it refuses. Documents are served on loopback, which the guard is told to allow.
 */
import { createServer, type Server, type ServerResponse } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { JsonSchemaCredentialError, readJsonSchemaCredential, SCHEMA_MAX_BYTES } from '../../src/credentials/json-schema-credential.ts'
import { OutboundGuard, UnsafeUrlError } from '../../src/http/outbound-guard.ts'

const subjectSchema = { title: 'Person', properties: { credentialSubject: { properties: { id: {}, name: {}, age: {} } } } }
const credential = (jsonSchema: unknown) => ({ type: ['VerifiableCredential', 'JsonSchemaCredential'], credentialSubject: { jsonSchema } })

/** A chunked JSON body that never ends (until the client goes away): only a limit enforced while reading stops it. */
function streamEndlessly(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'application/json' })
  res.write('{"padding":"')
  const chunk = 'x'.repeat(64 * 1024)
  const pump = () => {
    while (!res.destroyed && res.write(chunk));
    if (!res.destroyed) res.once('drain', pump)
  }
  res.once('close', () => res.destroy())
  pump()
}

describe('readJsonSchemaCredential', () => {
  let server: Server
  let base: string
  const guard = new OutboundGuard(['127.0.0.1/32'])
  const documents = new Map<string, string>()

  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/endless') return void streamEndlessly(res)
      const body = documents.get(req.url ?? '')
      res.writeHead(body === undefined ? 404 : 200, { 'content-type': 'application/json' }).end(body ?? '{}')
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`
    documents.set('/schema.json', JSON.stringify(subjectSchema))
    documents.set('/referenced-jsc.json', JSON.stringify(credential({ $ref: `${base}/schema.json` })))
    documents.set('/inline-jsc.json', JSON.stringify(credential({ properties: { email: {}, phone: {} } })))
    documents.set('/vpr-jsc.json', JSON.stringify(credential({ $ref: 'vpr:verana:testnet/cs/v1/js/1' })))
    documents.set('/plain-vc.json', JSON.stringify({ type: ['VerifiableCredential'], credentialSubject: { jsonSchema: subjectSchema } }))
    documents.set('/not-json', 'hello')
  })

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve))
    await guard.close()
  })

  it('follows an http(s) $ref and reads the credentialSubject properties', async () => {
    expect(await readJsonSchemaCredential(guard, `${base}/referenced-jsc.json`)).toEqual({
      title: 'Person',
      attributes: ['id', 'name', 'age'],
    })
  })

  it('reads an inline schema whose properties are the subject itself', async () => {
    expect(await readJsonSchemaCredential(guard, `${base}/inline-jsc.json`)).toEqual({ title: undefined, attributes: ['email', 'phone'] })
  })

  it('refuses vpr references, credentials of another type, non-JSON and missing documents', async () => {
    await expect(readJsonSchemaCredential(guard, `${base}/vpr-jsc.json`)).rejects.toThrow(/cannot resolve the schema reference 'vpr:/)
    await expect(readJsonSchemaCredential(guard, `${base}/plain-vc.json`)).rejects.toThrow(/type must include JsonSchemaCredential/)
    await expect(readJsonSchemaCredential(guard, `${base}/not-json`)).rejects.toThrow(JsonSchemaCredentialError)
    await expect(readJsonSchemaCredential(guard, `${base}/absent.json`)).rejects.toThrow(/answered 404/)
  })

  it('refuses addresses the guard does not allow', async () => {
    const strict = new OutboundGuard()
    await expect(readJsonSchemaCredential(strict, `${base}/inline-jsc.json`)).rejects.toThrow(UnsafeUrlError)
    await strict.close()
  })

  it('stops reading a document at the size limit instead of buffering it whole', async () => {
    await expect(readJsonSchemaCredential(guard, `${base}/endless`)).rejects.toThrow(`is larger than ${SCHEMA_MAX_BYTES} bytes`)
  })
})
