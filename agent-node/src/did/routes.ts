/**
 * Public routes of the agent's DID (mounted on the public app, port 3001):
 * - `GET /.well-known/did.jsonl`: the did:webvh log, one JSON entry per line (`text/jsonl`);
 *   404 for a did:web DID;
 * - `GET /.well-known/did.json`: the did:web document; for did:webvh the parallel did:web
 *   document the method recommends publishing beside the log.
 */
import { Hono } from 'hono'
import type { PublicDidRecord } from './PublicDidRecord.ts'
import { didWebDocument } from './PublicDidService.ts'

export function publicDidRoutes(record: PublicDidRecord): Hono {
  const app = new Hono()
  app.get('/.well-known/did.json', (c) => c.json(didWebDocument(record)))
  app.get('/.well-known/did.jsonl', (c) => {
    if (!record.log) return c.json({ error: 'not_found', message: `${record.did} is a did:web DID: it has no did:webvh log` }, 404)
    return c.body(`${record.log.map((entry) => JSON.stringify(entry)).join('\n')}\n`, 200, {
      'content-type': 'text/jsonl; charset=utf-8',
      'cache-control': 'no-cache',
    })
  })
  return app
}
