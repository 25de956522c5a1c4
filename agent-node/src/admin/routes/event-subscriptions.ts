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
import { z } from '@hono/zod-openapi'
import { found, NotFoundError, unsafeUrlAsField } from '../../errors/index.ts'
import { CreateSubscriptionBody, Subscription } from '../../events/subscriptions/model.ts'
import type { SubscriptionService } from '../../events/subscriptions/service.ts'
import { adminRouter, jsonRoute } from '../openapi.ts'

const SubscriptionIdParam = z.object({
  subscription_id: z.uuid().openapi({ param: { name: 'subscription_id', in: 'path' } }),
})
const badId = 'subscription_id is not a UUID'
const notFound = 'No such subscription'

const createSubscription = jsonRoute({
  method: 'post',
  path: '/v1/event-subscriptions',
  tags: ['events'],
  summary: 'Create an event subscription',
  description:
    'Events appended from now on are delivered to `url`, each connection in order, with their own cursor, retries and dead letters. The URL is checked (scheme, host resolves, not private unless allow-listed), not called.',
  body: CreateSubscriptionBody,
  responses: {
    201: [Subscription, 'Created; delivery has started'],
    400: 'Invalid body, or a URL the agent refuses to call; `issues` names the fields',
  },
})

const listSubscriptions = jsonRoute({
  method: 'get',
  path: '/v1/event-subscriptions',
  tags: ['events'],
  summary: 'List event subscriptions',
  responses: { 200: [z.array(Subscription), 'Every subscription, oldest first'] },
})

const getSubscription = jsonRoute({
  method: 'get',
  path: '/v1/event-subscriptions/{subscription_id}',
  tags: ['events'],
  summary: 'Get one event subscription',
  params: SubscriptionIdParam,
  responses: { 200: [Subscription, 'The subscription'], 400: badId, 404: notFound },
})

const deleteSubscription = jsonRoute({
  method: 'delete',
  path: '/v1/event-subscriptions/{subscription_id}',
  tags: ['events'],
  summary: 'Delete an event subscription',
  description: 'Stops its delivery (an attempt in flight is abandoned) and drops its cursors and dead letters.',
  params: SubscriptionIdParam,
  responses: { 204: 'Deleted', 400: badId, 404: notFound },
})

const notFoundMessage = (id: string) => `event subscription '${id}' not found`

/** The `/v1/event-subscriptions` sub-app over `deps.subscriptions`; a refused `url` is a 400 naming it. */
export function eventSubscriptionRoutes(deps: { subscriptions: Pick<SubscriptionService, 'create' | 'list' | 'get' | 'delete'> }) {
  const { subscriptions } = deps
  return adminRouter()
    .openapi(createSubscription, async (c) => c.json(await subscriptions.create(c.req.valid('json')).catch(unsafeUrlAsField('url')), 201))
    .openapi(listSubscriptions, async (c) => c.json(await subscriptions.list(), 200))
    .openapi(getSubscription, async (c) => {
      const { subscription_id } = c.req.valid('param')
      return c.json(found(await subscriptions.get(subscription_id), notFoundMessage(subscription_id)), 200)
    })
    .openapi(deleteSubscription, async (c) => {
      const { subscription_id } = c.req.valid('param')
      if (!(await subscriptions.delete(subscription_id))) throw new NotFoundError(notFoundMessage(subscription_id))
      return c.body(null, 204)
    })
}
