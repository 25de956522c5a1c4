/**
 * A chunked POST (no Content-Length) that keeps streaming until the server answers: shows that a
 * body limit is enforced while the body streams in, not after it was read whole.
 */
import { request } from 'node:http'

/**
 * POSTs up to `total` bytes of spaces, chunked, to `http://127.0.0.1:<port><path>` with
 * `contentType`; stops writing as soon as the answer comes.
 * @returns its status, the bytes written by then and the milliseconds to the answer.
 */
export function chunkedPost(
  port: number,
  path: string,
  contentType: string,
  total: number,
): Promise<{ status: number; written: number; ms: number }> {
  const chunk = Buffer.alloc(64 * 1024, 0x20)
  const start = performance.now()
  return new Promise((resolve, reject) => {
    let written = 0
    let answered = false
    const req = request({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path,
      headers: { 'content-type': contentType, 'transfer-encoding': 'chunked' },
    })
    req.on('response', (response) => {
      answered = true
      response.resume()
      resolve({ status: response.statusCode ?? 0, written, ms: performance.now() - start })
      req.destroy()
    })
    req.on('error', (error) => !answered && reject(error))
    const pump = () => {
      while (!answered && written < total) {
        written += chunk.length
        if (!req.write(chunk)) return void req.once('drain', pump)
      }
      if (!answered) req.end()
    }
    pump()
  })
}
