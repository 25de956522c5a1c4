/**
 * `POST /v1/credential-types` (spec "Credential type"), and reading them back, which the spec
 * leaves undefined: `GET /v1/credential-types` and `GET /v1/credential-types/{id}` (`id` is the
 * credential definition id, URL-encoded). As vs-agent: `DELETE /v1/credential-types/{id}`,
 * `GET /v1/credential-types/export/{id}` and `POST /v1/credential-types/import` (see
 * `credentials/transfer.ts`; the export holds the issuer's private key).
 */
import { z } from '@hono/zod-openapi'
import { AttributeNames, boundedName } from '@parley/shared'
import type { CredentialTypeRecord } from '../../credentials/CredentialTypeRecord.ts'
import type { CredentialTypes } from '../../credentials/CredentialTypes.ts'
import { type CredentialTypeTransfer, UnknownCredentialTypeError } from '../../credentials/transfer.ts'
import { adminRouter, jsonRoute } from '../openapi.ts'

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

const createType = jsonRoute({
  method: 'post',
  path: '/v1/credential-types',
  tags: ['credentials'],
  summary: 'Create a credential type (schema + credential definition)',
  description: 'Repeating a name and version returns the existing type (200) instead of creating another (201).',
  body: CredentialTypeCreate,
  responses: {
    200: [CredentialTypeBody, 'The existing type of this name and version'],
    201: [CredentialTypeBody, 'Created'],
    400: 'Invalid body',
  },
})

const listTypes = jsonRoute({
  method: 'get',
  path: '/v1/credential-types',
  tags: ['credentials'],
  summary: 'List credential types',
  responses: { 200: [z.array(CredentialTypeBody), 'All types, oldest first'] },
})

const getType = jsonRoute({
  method: 'get',
  path: '/v1/credential-types/{id}',
  tags: ['credentials'],
  summary: 'Get one credential type by its credential definition id',
  params: z.object({
    id: z
      .string()
      .min(1)
      .openapi({ param: { name: 'id', in: 'path' } }),
  }),
  responses: { 200: [CredentialTypeBody, 'The type'], 404: 'No such type' },
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

const deleteType = jsonRoute({
  method: 'delete',
  path: '/v1/credential-types/{id}',
  tags: ['credentials'],
  summary: 'Delete a credential type',
  description:
    'Deletes the type and its private key: nothing more can be issued from it. Its published schema and definition stay resolvable, so issued credentials still verify.',
  params: IdParam,
  responses: { 204: 'Deleted', 404: 'No such type' },
})

const exportType = jsonRoute({
  method: 'get',
  path: '/v1/credential-types/export/{id}',
  tags: ['credentials'],
  summary: 'Export a credential type, private key included (vs-agent format)',
  params: IdParam,
  responses: { 200: [CredentialTypeExport, 'The type; as secret as the wallet key'], 404: 'No such type' },
})

const importType = jsonRoute({
  method: 'post',
  path: '/v1/credential-types/import',
  tags: ['credentials'],
  summary: "Import a credential type exported by an installation with this agent's public DID",
  body: CredentialTypeExport,
  responses: {
    201: [CredentialTypeBody, 'Imported'],
    400: "Invalid body, objects not of this agent's DID or not matching their ids",
    409: 'The type exists, or another type has its name and version (`issues` name `data.name`, `data.version`)',
  },
})

/** What these routes use: the types (`credentials/CredentialTypes.ts`) and their transfer (`credentials/transfer.ts`). */
export interface CredentialTypeRouteDeps {
  credentialTypes: Pick<CredentialTypes, 'create' | 'list' | 'find'>
  transfer: Pick<CredentialTypeTransfer, 'export' | 'import' | 'delete'>
}

/** The `/v1/credential-types` sub-app (create, read, delete, export, import). */
export function credentialTypeRoutes(deps: CredentialTypeRouteDeps) {
  return adminRouter()
    .openapi(createType, async (c) => {
      const { type, created } = await deps.credentialTypes.create(c.req.valid('json'))
      return created ? c.json(toBody(type), 201) : c.json(toBody(type), 200)
    })
    .openapi(listTypes, async (c) => c.json((await deps.credentialTypes.list()).map(toBody), 200))
    .openapi(getType, async (c) => {
      const { id } = c.req.valid('param')
      const type = await deps.credentialTypes.find(id)
      if (!type) throw new UnknownCredentialTypeError(id)
      return c.json(toBody(type), 200)
    })
    .openapi(deleteType, async (c) => {
      await deps.transfer.delete(c.req.valid('param').id)
      return c.body(null, 204)
    })
    .openapi(exportType, async (c) => c.json(await deps.transfer.export(c.req.valid('param').id), 200))
    .openapi(importType, async (c) => c.json(toBody(await deps.transfer.import(c.req.valid('json'))), 201))
}
