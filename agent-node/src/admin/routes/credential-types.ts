/**
 * `POST /v1/credential-types` (spec "Credential type"), and reading them back, which the spec
 * leaves undefined: `GET /v1/credential-types` and `GET /v1/credential-types/{id}` (`id` is the
 * credential definition id, URL-encoded). As vs-agent: `DELETE /v1/credential-types/{id}`,
 * `GET /v1/credential-types/export/{id}` and `POST /v1/credential-types/import` (see
 * `credentials/transfer.ts`; the export holds the issuer's private key).
 */
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi'
import { AttributeNames, boundedName } from '@parley/shared'
import type { CredentialTypeRecord } from '../../credentials/CredentialTypeRecord.ts'
import { CredentialTypeExistsError, deleteCredentialType, exportCredentialType, importCredentialType } from '../../credentials/transfer.ts'
import { ClaimsMismatchError, UnknownCredentialDefinitionError } from '../../credentials/CredentialTypes.ts'
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
  request: {
    params: z.object({
      id: z
        .string()
        .min(1)
        .openapi({ param: { name: 'id', in: 'path' } }),
    }),
  },
  responses: {
    200: { description: 'The type', content: { 'application/json': { schema: CredentialTypeBody } } },
    404: { description: 'No such type', content: { 'application/json': { schema: ErrorBody } } },
  },
})

const IdParam = z.object({
  id: z
    .string()
    .min(1)
    .max(2_048)
    .openapi({ param: { name: 'id', in: 'path' } }),
})

const AnonCredsObject = z.record(z.string(), z.unknown())

const CredentialTypeExport = z
  .strictObject({
    id: boundedName(2_048).describe('The credential definition id'),
    data: z.strictObject({
      name: boundedName(200),
      version: boundedName(50),
      schema: z.strictObject({ issuerId: boundedName(512), name: z.string(), version: z.string(), attrNames: AttributeNames }),
      credentialDefinition: z.strictObject({
        issuerId: boundedName(512),
        schemaId: boundedName(2_048),
        type: z.literal('CL'),
        tag: z.string().max(200),
        value: z.strictObject({ primary: AnonCredsObject, revocation: z.unknown().optional() }),
      }),
      credentialDefinitionPrivate: AnonCredsObject.describe('The issuer private key: keep it secret'),
      keyCorrectnessProof: AnonCredsObject,
    }),
  })
  .openapi('CredentialTypeExport')

const deleteType = createRoute({
  method: 'delete',
  path: '/v1/credential-types/{id}',
  tags: ['credentials'],
  summary: 'Delete a credential type',
  description:
    'Deletes the type and its private key: nothing more can be issued from it. Its published schema and definition stay resolvable, so issued credentials still verify.',
  request: { params: IdParam },
  responses: {
    204: { description: 'Deleted' },
    404: { description: 'No such type', content: { 'application/json': { schema: ErrorBody } } },
  },
})

const exportType = createRoute({
  method: 'get',
  path: '/v1/credential-types/export/{id}',
  tags: ['credentials'],
  summary: 'Export a credential type, private key included (vs-agent format)',
  request: { params: IdParam },
  responses: {
    200: { description: 'The type; as secret as the wallet key', content: { 'application/json': { schema: CredentialTypeExport } } },
    404: { description: 'No such type', content: { 'application/json': { schema: ErrorBody } } },
  },
})

const importType = createRoute({
  method: 'post',
  path: '/v1/credential-types/import',
  tags: ['credentials'],
  summary: "Import a credential type exported by an installation with this agent's public DID",
  request: { body: { required: true, content: { 'application/json': { schema: CredentialTypeExport } } } },
  responses: {
    201: { description: 'Imported', content: { 'application/json': { schema: CredentialTypeBody } } },
    400: {
      description: "Invalid body, objects not of this agent's DID or not matching their ids",
      content: { 'application/json': { schema: ErrorBody } },
    },
    409: { description: 'The type exists', content: { 'application/json': { schema: ErrorBody } } },
  },
})

export function credentialTypeRoutes(deps: AdminDeps, app: OpenAPIHono) {
  const notFound = (c: Parameters<typeof errorResponse>[0], id: string) =>
    errorResponse(c, 404, 'not_found', `no credential type with id '${id}'`)
  return app
    .openapi(createType, async (c) => {
      const { type, created } = await deps.credentialTypes.create(c.req.valid('json'))
      return created ? c.json(toBody(type), 201) : c.json(toBody(type), 200)
    })
    .openapi(listTypes, async (c) => c.json((await deps.credentialTypes.list()).map(toBody), 200))
    .openapi(getType, async (c) => {
      const { id } = c.req.valid('param')
      const type = await deps.credentialTypes.find(id)
      return type ? c.json(toBody(type), 200) : notFound(c, id)
    })
    .openapi(deleteType, async (c) => {
      const { id } = c.req.valid('param')
      return (await deleteCredentialType(deps.agent, id)) ? c.body(null, 204) : notFound(c, id)
    })
    .openapi(exportType, async (c) => {
      const { id } = c.req.valid('param')
      try {
        return c.json(await exportCredentialType(deps.agent, id), 200)
      } catch (error) {
        if (error instanceof UnknownCredentialDefinitionError) return notFound(c, id)
        throw error
      }
    })
    .openapi(importType, async (c) => {
      try {
        return c.json(toBody(await importCredentialType(deps.agent, deps.publicDid, c.req.valid('json'))), 201)
      } catch (error) {
        if (error instanceof CredentialTypeExistsError) return errorResponse(c, 409, 'conflict', error.message)
        if (error instanceof ClaimsMismatchError) return errorResponse(c, 400, 'validation_error', error.message, error.issues)
        throw error
      }
    })
}
