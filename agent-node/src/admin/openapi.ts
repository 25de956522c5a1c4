/**
 * How admin routes are declared: `adminRouter()` makes the sub-app of one resource (mounted on
 * the admin app with `app.route('/', …)`), `jsonRoute()` declares one JSON route of it, so the
 * `createRoute` boilerplate (request body and response content objects) is written once.
 */
import { createRoute, OpenAPIHono, type z } from '@hono/zod-openapi'
import type { Logger } from '../logging/index.ts'
import { ErrorBody, validationHook } from './errors.ts'

/** Per-request values every admin handler may read: the request id and a logger carrying it. */
export type AdminEnv = { Variables: { requestId: string; logger: Logger } }

/** A resource's sub-app: an OpenAPI app whose failed validations answer 400 naming the fields. */
export function adminRouter(): OpenAPIHono<AdminEnv> {
  return new OpenAPIHono<AdminEnv>({ defaultHook: validationHook })
}

/**
 * One response of a `jsonRoute`:
 * - `[schema, description]`: a JSON body of `schema`;
 * - `description` alone: the error envelope (`ErrorBody`) for a 4xx or 5xx status, no body otherwise (204, 101);
 * - an OpenAPI response object, as is (another media type, such as `image/png`, or response
 *   headers as a zod object, such as a list's `Link`).
 */
export type ResponseSpec =
  | string
  | readonly [z.ZodType, string]
  | { description: string; content?: Record<string, { schema: z.ZodType }>; headers?: z.ZodType }

/** What `jsonRoute` declares: method, path, documentation, the request parts, the responses by status. */
export interface JsonRouteSpec {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete'
  /** OpenAPI path, parameters in braces: `/v1/connections/{connection_id}`. */
  path: string
  tags: readonly string[]
  summary: string
  description?: string
  params?: z.ZodType
  query?: z.ZodType
  headers?: z.ZodType
  /** The JSON request body; required unless `bodyOptional` (then an absent body is not validated). */
  body?: z.ZodType
  bodyOptional?: boolean
  responses: { readonly [status: number]: ResponseSpec }
}

type IsErrorStatus<S> = `${S & number}` extends `4${string}` | `5${string}` ? true : false
type Json<T extends z.ZodType> = { description: string; content: { 'application/json': { schema: T } } }
type ResponseOf<S, V> = V extends readonly [infer T extends z.ZodType, string]
  ? Json<T>
  : V extends string
    ? IsErrorStatus<S> extends true
      ? Json<typeof ErrorBody>
      : { description: string }
    : V
type Part<R, K extends string> = R extends { [P in K]: infer T extends z.ZodType } ? T : undefined

/** The `createRoute` config `jsonRoute` makes of `R`, typed as precisely as if written out. */
export type JsonRoute<R extends JsonRouteSpec> = {
  method: R['method']
  path: R['path']
  tags: string[]
  summary: string
  description?: string
  request: {
    params: Part<R, 'params'>
    query: Part<R, 'query'>
    headers: Part<R, 'headers'>
    body: Part<R, 'body'> extends infer B extends z.ZodType
      ? { required: boolean; content: { 'application/json': { schema: B } } }
      : undefined
  }
  responses: { -readonly [S in keyof R['responses']]: ResponseOf<S, R['responses'][S]> }
  getRoutingPath(): string
}

function response(status: number, spec: ResponseSpec) {
  if (typeof spec === 'string') {
    return status >= 400 ? { description: spec, content: { 'application/json': { schema: ErrorBody } } } : { description: spec }
  }
  if (Array.isArray(spec)) {
    const [schema, description] = spec as readonly [z.ZodType, string]
    return { description, content: { 'application/json': { schema } } }
  }
  return spec
}

/** Declares a JSON route (see `JsonRouteSpec`, `ResponseSpec`) for `app.openapi(route, handler)`. */
export function jsonRoute<const R extends JsonRouteSpec>(spec: R): JsonRoute<R> {
  const { params, query, headers, body, bodyOptional, responses, tags, ...rest } = spec
  const request = {
    ...(params ? { params } : {}),
    ...(query ? { query } : {}),
    ...(headers ? { headers } : {}),
    ...(body ? { body: { required: !bodyOptional, content: { 'application/json': { schema: body } } } } : {}),
  }
  return createRoute({
    ...rest,
    tags: [...tags],
    request,
    responses: Object.fromEntries(Object.entries(responses).map(([status, value]) => [status, response(Number(status), value)])),
  } as Parameters<typeof createRoute>[0]) as unknown as JsonRoute<R>
}
