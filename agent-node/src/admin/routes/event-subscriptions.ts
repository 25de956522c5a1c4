/**
 * `/v1/event-subscriptions` (the spec's planned "event subscriptions" surface): create, list,
 * get and delete subscriptions. Delivery by HTTP (`http(s)://` URL: POST `<url>/<topic>`) or
 * WebSocket (`ws(s)://` URL: the agent dials it and sends event frames), filtered by `topics`
 * and `connectionId`. The work is in `events/subscriptions/service.ts`.
 *
 * A URL the outbound guard refuses (host that does not resolve, private address outside
 * OUTBOUND_ALLOWED_NETWORKS) is a 400 `validation_error` naming `url`; the URL is not called
 * when the subscription is created.
 */
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi'
import { CreateSubscriptionBody, Subscription } from '../../events/subscriptions/model.ts'
import { UnsafeUrlError } from '../../http/outbound-guard.ts'
import type { AdminDeps } from '../context.ts'
import { ErrorBody, errorResponse } from '../errors.ts'
import { jsonResponse } from '../schemas.ts'

const SubscriptionIdParam = z.object({
  subscription_id: z.uuid().openapi({ param: { name: 'subscription_id', in: 'path' } }),
})
const badId = jsonResponse(ErrorBody, 'subscription_id is not a UUID')
const notFound = jsonResponse(ErrorBody, 'No such subscription')

const createSubscription = createRoute({
  method: 'post',
  path: '/v1/event-subscriptions',
  tags: ['events'],
  summary: 'Create an event subscription',
  description:
    'Events appended from now on are delivered to `url`, each connection in order, with their own cursor, retries and dead letters. The URL is checked (scheme, host resolves, not private unless allow-listed), not called.',
  request: { body: { required: true, content: { 'application/json': { schema: CreateSubscriptionBody } } } },
  responses: {
    201: jsonResponse(Subscription, 'Created; delivery has started'),
    400: jsonResponse(ErrorBody, 'Invalid body, or a URL the agent refuses to call; `issues` names the fields'),
  },
})

const listSubscriptions = createRoute({
  method: 'get',
  path: '/v1/event-subscriptions',
  tags: ['events'],
  summary: 'List event subscriptions',
  responses: { 200: jsonResponse(z.array(Subscription), 'Every subscription, oldest first') },
})

const getSubscription = createRoute({
  method: 'get',
  path: '/v1/event-subscriptions/{subscription_id}',
  tags: ['events'],
  summary: 'Get one event subscription',
  request: { params: SubscriptionIdParam },
  responses: { 200: jsonResponse(Subscription, 'The subscription'), 400: badId, 404: notFound },
})

const deleteSubscription = createRoute({
  method: 'delete',
  path: '/v1/event-subscriptions/{subscription_id}',
  tags: ['events'],
  summary: 'Delete an event subscription',
  description: 'Stops its delivery (an attempt in flight is abandoned) and drops its cursors and dead letters.',
  request: { params: SubscriptionIdParam },
  responses: { 204: { description: 'Deleted' }, 400: badId, 404: notFound },
})

export function eventSubscriptionRoutes(deps: AdminDeps, app: OpenAPIHono) {
  const notFoundResponse = (c: Parameters<typeof errorResponse>[0], id: string) =>
    errorResponse(c, 404, 'not_found', `event subscription '${id}' not found`)
  return app
    .openapi(createSubscription, async (c) => {
      try {
        return c.json(await deps.subscriptions.create(c.req.valid('json')), 201)
      } catch (error) {
        if (!(error instanceof UnsafeUrlError)) throw error
        return errorResponse(c, 400, 'validation_error', `url: ${error.reason}`, [{ field: 'url', message: error.reason }])
      }
    })
    .openapi(listSubscriptions, async (c) => c.json(await deps.subscriptions.list(), 200))
    .openapi(getSubscription, async (c) => {
      const { subscription_id } = c.req.valid('param')
      const subscription = await deps.subscriptions.get(subscription_id)
      return subscription ? c.json(subscription, 200) : notFoundResponse(c, subscription_id)
    })
    .openapi(deleteSubscription, async (c) => {
      const { subscription_id } = c.req.valid('param')
      return (await deps.subscriptions.delete(subscription_id)) ? c.body(null, 204) : notFoundResponse(c, subscription_id)
    })
}
