/**
 * `POST /v1/credential-types` (spec "Credential type"), and reading them back, which the spec
 * leaves undefined: `GET /v1/credential-types` and `GET /v1/credential-types/{id}` (`id` is the
 * credential definition id, URL-encoded).
 */
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi'
import { AttributeNames, boundedName } from '@parley/shared'
import type { CredentialTypeRecord } from '../../credentials/CredentialTypeRecord.ts'
import type { AdminDeps } from '../context.ts'
import { ErrorBody, errorResponse } from '../errors.ts'

const CredentialTypeCreate = z
  .strictObject({
    name: boundedName(200).describe('Friendly name; with version, the local lookup key'),
    version: boundedName(50),
    attributes: AttributeNames,
    supportRevocation: z.boolean().optional().describe('Accepted and stored; revocation itself is not supported yet'),
  })
  .openapi('CredentialTypeCreate')

const CredentialTypeBody = z
  .object({
    id: z.string().describe('Credential definition id; refers to the type everywhere else'),
    schemaId: z.string(),
    name: z.string(),
    version: z.string(),
    attributes: z.array(z.string()),
    supportRevocation: z.boolean(),
    createdAt: z.string().describe('ISO 8601'),
  })
  .openapi('CredentialType')

const toBody = (type: CredentialTypeRecord): z.infer<typeof CredentialTypeBody> => ({
  id: type.credentialDefinitionId,
  schemaId: type.schemaId,
  name: type.name,
  version: type.version,
  attributes: type.attributes,
  supportRevocation: type.supportRevocation,
  createdAt: new Date(type.createdAt).toISOString(),
})

const createType = createRoute({
  method: 'post',
  path: '/v1/credential-types',
  tags: ['credentials'],
  summary: 'Create a credential type (schema + credential definition)',
  description: 'Repeating a name and version returns the existing type (200) instead of creating another (201).',
  request: { body: { required: true, content: { 'application/json': { schema: CredentialTypeCreate } } } },
  responses: {
    200: { description: 'The existing type of this name and version', content: { 'application/json': { schema: CredentialTypeBody } } },
    201: { description: 'Created', content: { 'application/json': { schema: CredentialTypeBody } } },
    400: { description: 'Invalid body', content: { 'application/json': { schema: ErrorBody } } },
  },
})

const listTypes = createRoute({
  method: 'get',
  path: '/v1/credential-types',
  tags: ['credentials'],
  summary: 'List credential types',
  responses: { 200: { description: 'All types, oldest first', content: { 'application/json': { schema: z.array(CredentialTypeBody) } } } },
})

const getType = createRoute({
  method: 'get',
  path: '/v1/credential-types/{id}',
  tags: ['credentials'],
  summary: 'Get one credential type by its credential definition id',
  request: { params: z.object({ id: z.string().min(1).openapi({ param: { name: 'id', in: 'path' } }) }) },
  responses: {
    200: { description: 'The type', content: { 'application/json': { schema: CredentialTypeBody } } },
    404: { description: 'No such type', content: { 'application/json': { schema: ErrorBody } } },
  },
})

export function credentialTypeRoutes(deps: AdminDeps, app: OpenAPIHono) {
  return app
    .openapi(createType, async (c) => {
      const { type, created } = await deps.credentialTypes.create(c.req.valid('json'))
      return created ? c.json(toBody(type), 201) : c.json(toBody(type), 200)
    })
    .openapi(listTypes, async (c) => c.json((await deps.credentialTypes.list()).map(toBody), 200))
    .openapi(getType, async (c) => {
      const { id } = c.req.valid('param')
      const type = await deps.credentialTypes.find(id)
      return type ? c.json(toBody(type), 200) : errorResponse(c, 404, 'not_found', `no credential type with id '${id}'`)
    })
}
