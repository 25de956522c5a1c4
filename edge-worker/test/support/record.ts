/** Writing a conversation's record directly, for the tests and the test entry's `record` hook. */

/**
 * Stores a handled text event of `seq` (id `id`, at `at` ms) in a Conversation object's storage
 * `sql`, with a user message `user` and the assistant's answer `assistant` as its turns.
 */
export function storeExchange(sql: SqlStorage, exchange: { id: string; seq: number; user: string; assistant: string; at: number }): void {
  const { id, seq, user, assistant, at } = exchange
  const body = JSON.stringify({ type: 'message-received', message: { type: 'text', content: user } })
  const { position } = sql
    .exec<{ position: number }>(
      "INSERT INTO events (id, seq, type, body, received_at, handled_at) VALUES (?, ?, 'message-received', ?, ?, ?) RETURNING position",
      id,
      seq,
      body,
      at,
      at,
    )
    .one()
  sql.exec("INSERT INTO turns (event_position, role, content, created_at) VALUES (?, 'user', ?, ?)", position, user, at)
  sql.exec("INSERT INTO turns (event_position, role, content, created_at) VALUES (?, 'assistant', ?, ?)", position, assistant, at)
}
