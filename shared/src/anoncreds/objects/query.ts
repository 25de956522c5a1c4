/**
 * Restriction queries of presentation requests, parsed and written exactly like anoncreds-rs
 * `src/utils/query.rs` (the WQL subset): `{ tag: value }`,
 * `{ tag: { $neq | $gt | $gte | $lt | $lte | $like: value } }`, `{ tag: { $in: [values] } }`,
 * `{ $exist: tag | [tags] }`, `{ $and: [q] }`, `{ $or: [q] }`, `{ $not: q }`. Several keys in one
 * object are an `$and` (in sorted key order, as serde_json's map iterates); empty `$and` / `$or`
 * / `$exist` lists vanish. The legacy array form `[{...}, {...}]` is an `$or` of its (non-empty)
 * objects, with `null` members dropped.
 */
export type Query =
  | { op: 'eq' | 'neq' | 'gt' | 'gte' | 'lt' | 'lte' | 'like'; name: string; value: string }
  | { op: 'in'; name: string; values: string[] }
  | { op: 'exist'; names: string[] }
  | { op: 'and' | 'or'; operators: Query[] }
  | { op: 'not'; operator: Query }

const VALUE_OPS = { $neq: 'neq', $gt: 'gt', $gte: 'gte', $lt: 'lt', $lte: 'lte', $like: 'like' } as const
const OP_KEYS = Object.fromEntries(Object.entries(VALUE_OPS).map(([k, v]) => [v, k])) as Record<string, string>

type Json = Record<string, unknown>

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value)

function parseList(values: unknown[]): Query[] {
  return values.map((value) => {
    if (!isObject(value)) throw new Error('operator must be array of JSON objects')
    return parseMap(value)
  })
}

function parseOperator(key: string, value: unknown): Query | undefined {
  if (key === '$and' || key === '$or') {
    if (!Array.isArray(value)) throw new Error(`${key} must be array of JSON objects`)
    return value.length === 0 ? undefined : { op: key === '$and' ? 'and' : 'or', operators: parseList(value) }
  }
  if (key === '$not') {
    if (!isObject(value)) throw new Error('$not must be JSON object')
    return { op: 'not', operator: parseMap(value) }
  }
  if (key === '$exist') {
    if (typeof value === 'string') return { op: 'exist', names: [value] }
    if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) {
      throw new Error('$exist must be used with a string or array of strings')
    }
    return value.length === 0 ? undefined : { op: 'exist', names: value as string[] }
  }
  if (typeof value === 'string') return { op: 'eq', name: key, value }
  if (isObject(value)) {
    const entries = Object.entries(value)
    if (entries.length !== 1) throw new Error('value must be JSON object of length 1')
    const [op, arg] = entries[0] as [string, unknown]
    if (op === '$in') {
      if (!Array.isArray(arg) || !arg.every((v) => typeof v === 'string')) throw new Error('$in must be used with array of strings')
      return { op: 'in', name: key, values: arg as string[] }
    }
    if (op in VALUE_OPS) {
      if (typeof arg !== 'string') throw new Error(`${op} must be used with string`)
      return { op: VALUE_OPS[op as keyof typeof VALUE_OPS], name: key, value: arg }
    }
    throw new Error('Unknown operator')
  }
  throw new Error('Unsupported value')
}

function parseMap(map: Json): Query {
  const operators: Query[] = []
  for (const key of Object.keys(map).sort()) {
    const operator = parseOperator(key, map[key])
    if (operator) operators.push(operator)
  }
  return operators.length === 1 ? (operators[0] as Query) : { op: 'and', operators }
}

/** Parses a restriction (object or legacy array); throws `Error` with anoncreds-rs' reason when malformed. */
export function parseQuery(json: unknown): Query {
  if (isObject(json)) return parseMap(json)
  if (Array.isArray(json)) {
    const subQueries: Json[] = []
    for (const item of json) {
      if (!isObject(item)) throw new Error('Restriction is invalid')
      const kept = Object.fromEntries(Object.entries(item).filter(([, v]) => v !== null))
      if (Object.keys(kept).length > 0) subQueries.push(kept)
    }
    return parseMap({ $or: subQueries })
  }
  throw new Error('Restriction must be either object or array')
}

/** The JSON anoncreds-rs writes for a query (`AbstractQuery::to_value`). */
export function queryToJson(query: Query): Json {
  switch (query.op) {
    case 'eq':
      return { [query.name]: query.value }
    case 'in':
      return { [query.name]: { $in: query.values } }
    case 'exist':
      return { $exist: query.names }
    case 'and':
    case 'or':
      return query.operators.length === 0 ? {} : { [`$${query.op}`]: query.operators.map(queryToJson) }
    case 'not':
      return { $not: queryToJson(query.operator) }
    default:
      return { [query.name]: { [OP_KEYS[query.op] as string]: query.value } }
  }
}

/** Tag names a query mentions (anoncreds-rs `Query::get_name`). */
export function queryTagNames(query: Query): string[] {
  switch (query.op) {
    case 'and':
    case 'or':
      return query.operators.flatMap(queryTagNames)
    case 'not':
      return queryTagNames(query.operator)
    case 'exist':
      return query.names
    default:
      return [query.name]
  }
}
