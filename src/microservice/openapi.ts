import { javaClassName, typeName, type Descriptor, type ObjectDescriptor } from './descriptors'
import { codes, type ErrorCode } from '../common/errors/codes'
import { SEQUENCES } from '../common/contract/vocabulary'
import { PLATFORM_HEADER_NOTES, EDGE_API_PREFIX, IDENTITY_HEADERS } from '../common/contract/http-names'
import { alphaTypeName, type AliasMap } from './serializers/alpha-node'
import { XML_NAMING } from './serializers/alpha-xml'
import { createAlphaXmlSerializer } from './serializers/alpha-xml'
import { createBetaJsonSerializer } from './serializers/beta-json'
import { compileRemotelyEnabled } from './catalog'
import type { MethodDefinition, MicroserviceDefinition, ServiceDefinition } from './define'

/** A JSON value: the description is plain data, written as JSON. */
export type Json = null | boolean | number | string | Json[] | { [k: string]: Json }
type Schema = { [k: string]: Json }

export interface DescribeInput {
  readonly name: string
  readonly version: string
  readonly definition: MicroserviceDefinition
  /** The alpha aliases in effect (the code's plus the config's): XML element names. */
  readonly aliases: AliasMap
}

/** The error codes an ROA call of a documented method can meet, by status (DESIGN's table). */
const ROA_ERRORS: readonly ErrorCode[] = [
  'MALFORMED_BODY',
  'BAD_ARGUMENT',
  'UNKNOWN_API_ID',
  'UNKNOWN_SEQUENCE',
  'UNKNOWN_MICROSERVICE',
  'UNKNOWN_SERVICE',
  'UNKNOWN_METHOD',
  'FORMAT_MISMATCH',
  'BODY_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'SEQUENCE_FORMAT_MISMATCH',
  'METHOD_FAILED',
  'INTERNAL',
  'BACKEND_CONNECTION_LOST',
  'MICROSERVICE_UNAVAILABLE',
  'OVERLOADED',
  'EXECUTION_TIMEOUT'
]

/**
 * The OpenAPI 3.1 description of a microservice's documented ROA methods (SPEC: "ROA services can be
 * described"; RMC cannot, its input is an array). A method appears when it carries an operation note
 * and has exactly one parameter, in a remotely enabled service. Schemas follow the wire shapes the
 * serializers write: the default sequence's JSON (beta, Jackson) for application/json, alpha XML
 * (XStream: aliases, element names) for application/xml.
 */
export function describeMicroservice(input: DescribeInput): { [k: string]: Json } {
  const { name, version, definition, aliases } = input
  const components = new Components(aliases)
  const enabled = compileRemotelyEnabled(definition.platformRegularExpressionToRemotelyEnabled)
  const paths: { [k: string]: Json } = {}
  const tags: Json[] = []
  for (const svc of definition.services) {
    if (!enabled(svc.name)) continue
    const documented = svc.methods.filter((m) => m.operation !== null && m.params.length === 1)
    if (documented.length === 0) continue
    const tag = svc.api?.title ?? svc.name
    // Swagger UI groups by an operation's first tag; the note's tags travel as an extension so a
    // method is not listed twice.
    tags.push(
      compact({
        name: tag,
        description: svc.api?.description ?? null,
        'x-tags': svc.api?.tags ? [...svc.api.tags] : null
      })
    )
    for (const m of documented) paths[`/${svc.name}/${m.name}`] = { post: operation(svc, m, tag, components, aliases) }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: `${name}`,
      version,
      description: `Remotely enabled ROA methods of microservice '${name}'. ${IDENTITY_NOTE}`
    },
    servers: [
      {
        url: `${EDGE_API_PREFIX}/${name}`,
        description: 'the edge; the same call as /{service}/{method} on the gateway (:8082)'
      }
    ],
    tags,
    paths,
    components: { schemas: { ...components.schemas, Problem: PROBLEM_SCHEMA } }
  }
}

function operation(svc: ServiceDefinition, m: MethodDefinition, tag: string, c: Components, aliases: AliasMap): Json {
  const note = m.operation!
  const param = m.params[0]!
  const p = note.parameter ?? {}
  const json: Schema = { schema: c.schema(param, false) }
  const xml: Schema = { schema: c.schema(param, false, true) }
  if (p.example !== undefined) {
    json.example = wireJson(p.example, param)
    xml.example = wireXml(p.example, param, aliases)
  }
  const responses: { [k: string]: Json } = {}
  if (m.returns.kind === 'void') responses['204'] = { description: 'the method returned (void)' }
  else {
    const ok: Schema = { description: note.returns?.description ?? typeName(m.returns) }
    const jsonOut: Schema = { schema: c.schema(m.returns, true) }
    const xmlOut: Schema = { schema: c.schema(m.returns, true, true) }
    if (note.returns?.example !== undefined) {
      jsonOut.example = wireJson(note.returns.example, m.returns)
      xmlOut.example = wireXml(note.returns.example, m.returns, aliases)
    }
    ok.content = { 'application/json': jsonOut, 'application/xml': xmlOut }
    responses['200'] = ok
  }
  const errors = m.privileged ? [...ROA_ERRORS, 'PRIVILEGE_DENIED' as const] : ROA_ERRORS
  for (const [status, list] of byStatus(errors)) {
    responses[String(status)] = {
      description: list.map((code) => `${code}: ${codes[code].title}`).join('; '),
      content: {
        'application/problem+json': {
          schema: { allOf: [{ $ref: '#/components/schemas/Problem' }, { properties: { code: { enum: list } } }] },
          example: {
            type: `urn:platform:problem:${list[0]!}`,
            title: codes[list[0]!].title,
            status,
            detail: 'what went wrong, in words',
            code: list[0]!,
            requestId: '3f2c9a1e-7b4d-4c55-9a0e-1d2b3c4d5e6f'
          }
        }
      }
    }
  }
  return compact({
    tags: [tag],
    summary: note.summary,
    description: note.notes ?? null,
    operationId: `${svc.name}.${m.name}`,
    parameters: headerParameters(),
    requestBody: {
      required: p.required !== false,
      description: [p.name, p.description].filter((x) => x !== undefined).join(': ') || typeName(param),
      content: { 'application/json': json, 'application/xml': xml }
    },
    responses
  })
}

function byStatus(list: readonly ErrorCode[]): Array<[number, ErrorCode[]]> {
  const out = new Map<number, ErrorCode[]>()
  for (const code of list) {
    const s = codes[code].status
    out.set(s, [...(out.get(s) ?? []), code])
  }
  return [...out].sort((a, b) => a[0] - b[0])
}

/**
 * Why the description offers four of the nine X-PLATFORM headers: it is served by the edge, which
 * removes the identity headers every outside client sends (README, "Trust").
 */
const IDENTITY_NOTE = `Through the edge, ${IDENTITY_HEADERS.join(', ')} are not taken from the caller: the edge sets the user, session, application and privilege names from a credential (X-API-Key or a bearer token, when the platform accepts them) and the IP from the connection.`

/** The headers a caller through the edge may set (the identity headers are the edge's to set). */
function headerParameters(): Json[] {
  return PLATFORM_HEADER_NOTES.filter((h) => !(IDENTITY_HEADERS as readonly string[]).includes(h.name)).map((h) =>
    compact({
      name: h.name,
      in: 'header',
      required: false,
      description: h.description,
      schema:
        h.name === 'X-PLATFORM-Sequence-Name'
          ? { type: 'string', enum: Object.keys(SEQUENCES), default: 'betaParamArrayJsonInOutSequence' }
          : h.name === 'X-PLATFORM-API-ID'
            ? { type: 'string', enum: ['ROA'], default: 'ROA' }
            : { type: 'string' }
    })
  )
}

/** The example as the default sequence (beta JSON) writes it. */
function wireJson(value: unknown, d: Descriptor): Json {
  const out = createBetaJsonSerializer().serialize(value, d)
  return JSON.parse(typeof out === 'string' ? out : Buffer.from(out).toString()) as Json
}

/** The example as the alpha XML sequence writes it. */
function wireXml(value: unknown, d: Descriptor, aliases: AliasMap): string {
  const out = createAlphaXmlSerializer(aliases).serialize(value, d)
  return typeof out === 'string' ? out : Buffer.from(out).toString()
}

/** Named component schemas for classes; one per class, shared by JSON and XML (xml names annotate them). */
class Components {
  readonly schemas: { [k: string]: Json } = {}
  private readonly xmlCtx: { aliases: AliasMap; naming: typeof XML_NAMING }

  constructor(aliases: AliasMap) {
    this.xmlCtx = { aliases, naming: XML_NAMING }
  }

  /** The schema of a value declared `d`; `nullable` where Java lets it be null. */
  schema(d: Descriptor, nullable: boolean, root = false): Schema {
    const s = this.plain(d)
    // A root element of alpha XML is named by its type (alias, int, list, ...).
    if (root && d.kind !== 'object') s.xml = { name: alphaTypeName(d, this.xmlCtx) }
    return nullable && isReference(d) ? orNull(s) : s
  }

  private plain(d: Descriptor): Schema {
    switch (d.kind) {
      case 'scalar':
        switch (d.type) {
          case 'int':
          case 'Integer':
            return { type: 'integer', format: 'int32' }
          case 'long':
          case 'Long':
            return { type: 'integer', format: 'int64' }
          case 'double':
          case 'Double':
            return { type: 'number', format: 'double' }
          case 'boolean':
          case 'Boolean':
            return { type: 'boolean' }
          case 'char':
          case 'Character':
            return { type: 'string', minLength: 1, maxLength: 1 }
          default:
            return { type: 'string' }
        }
      case 'date':
        return {
          type: 'integer',
          format: 'int64',
          description: 'java.util.Date: epoch milliseconds in JSON (Jackson); `2023-11-14 22:13:20.0 UTC` in alpha XML'
        }
      case 'localDate':
        return {
          type: 'string',
          format: 'date',
          description: 'java.time.LocalDate (alpha sequences; Jackson 2.14 without JSR-310 refuses it)'
        }
      case 'object':
        return { $ref: `#/components/schemas/${this.component(d)}` }
      case 'list':
      case 'array': {
        const item = this.schema(d.item, true)
        item.xml = { name: alphaTypeName(d.item, this.xmlCtx) }
        return { type: 'array', items: item, description: typeName(d) }
      }
      case 'map':
        return { type: 'object', additionalProperties: this.schema(d.value, true), description: typeName(d) }
      case 'any':
        return {
          description:
            d.allowed.length === 0
              ? 'java.lang.Object: a String, number, boolean, list or map'
              : `java.lang.Object: also one of ${d.allowed.map(javaClassName).join(', ')}`
        }
      case 'void':
        return {}
    }
  }

  private component(d: ObjectDescriptor): string {
    const key = d.className.replace(/[^A-Za-z0-9._-]/g, '_')
    if (this.schemas[key] !== undefined) return key
    this.schemas[key] = {} // placeholder first: a class may refer to itself
    const properties: { [k: string]: Json } = {}
    const required: string[] = []
    for (const f of d.fields) {
      const s = this.schema(f.type, true)
      const xmlName = f.alias ?? XML_NAMING.field(f.name)
      if (f.attribute) s.xml = { name: xmlName, attribute: true }
      else if (f.implicit !== undefined && (f.type.kind === 'list' || f.type.kind === 'array'))
        s.xml = { name: f.implicit, wrapped: false }
      else if (f.type.kind === 'list' || f.type.kind === 'array') s.xml = { name: xmlName, wrapped: true }
      else if (xmlName !== f.name) s.xml = { name: xmlName }
      properties[f.name] = s
      if (!isReference(f.type)) required.push(f.name)
    }
    this.schemas[key] = compact({
      type: 'object',
      title: d.className,
      properties,
      required: required.length > 0 ? required : null,
      // Jackson's default FAIL_ON_UNKNOWN_PROPERTIES: a member the class lacks is refused (400).
      additionalProperties: false,
      xml: { name: alphaTypeName(d, this.xmlCtx) }
    })
    return key
  }
}

/** Java reference types may be null; primitives may not. */
function isReference(d: Descriptor): boolean {
  if (d.kind !== 'scalar') return d.kind !== 'void'
  return !['int', 'long', 'double', 'boolean', 'char'].includes(d.type)
}

function orNull(s: Schema): Schema {
  if (typeof s.type === 'string') return { ...s, type: [s.type, 'null'] }
  return { anyOf: [s, { type: 'null' }] }
}

function compact(o: { [k: string]: Json | undefined }): { [k: string]: Json } {
  const out: { [k: string]: Json } = {}
  for (const [k, v] of Object.entries(o)) if (v !== null && v !== undefined) out[k] = v
  return out
}

const PROBLEM_SCHEMA: Json = {
  type: 'object',
  description: 'RFC 9457 problem details; `code` is stable (the error table).',
  properties: {
    type: { type: 'string' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    code: { type: 'string', enum: Object.keys(codes) },
    requestId: { type: 'string' }
  },
  required: ['type', 'title', 'status', 'code', 'requestId']
}
