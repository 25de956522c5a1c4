/**
 * Reading a fetched response body with a size limit enforced while it streams in, so a remote
 * server cannot make agent-node buffer more than the limit (reading it whole with `text()` and
 * checking after holds all of it in memory first).
 */

/**
 * The body of `response` as UTF-8 text, or undefined when it is larger than `maxBytes` (the
 * stream is then cancelled: nothing past the limit is read).
 */
export async function readBoundedText(response: Response, maxBytes: number): Promise<string | undefined> {
  const chunks: Uint8Array[] = []
  let size = 0
  for await (const chunk of response.body ?? []) {
    size += chunk.byteLength
    // Leaving the loop early cancels the stream.
    if (size > maxBytes) return undefined
    chunks.push(chunk)
  }
  return Buffer.concat(chunks).toString('utf8')
}
