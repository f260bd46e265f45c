import { javaClassName, typeName, type Descriptor, type ObjectDescriptor } from '../descriptors/descriptors'
import { codes, type ErrorCode } from '../../common/errors/codes'
import { SEQUENCES, type ApiMode, type SequenceFamily, type SequenceName } from '../../common/contract/vocabulary'
import { PLATFORM_HEADER_NOTES, EDGE_API_PREFIX, IDENTITY_HEADERS, HEADER } from '../../common/contract/http-names'
import { alphaTypeName, type AliasMap } from '../serializers/alpha/alpha-node'
import { XML_NAMING } from '../serializers/alpha/alpha-xml'
import { JSON_NAMING } from '../serializers/alpha/alpha-json'
import { betaRootName } from '../serializers/beta/beta-xml'
import { defaultSerializers, type Serializer } from '../serializers'
import { compileRemotelyEnabled } from './service-index'
import { NO_SECURITY } from '../../common/contract/openapi-security'
import type { LicenseNote, MethodDefinition, MicroserviceDefinition, ServiceDefinition } from '../sdk/define'
import type { Json } from '../../common/json/value'

/** The description is plain data, written as JSON. */
type Schema = { [k: string]: Json }

export interface DescribeInput {
  readonly name: string
  readonly version: string
  readonly definition: MicroserviceDefinition
  /** The alpha aliases in effect (the code's plus the config's): XML element names. */
  readonly aliases: AliasMap
  /**
   * What the gateway does with a call that names no sequence or API mode (its `defaultSequenceName`
   * and `defaultApiId`); the shipped defaults when not given.
   */
  readonly defaults?: CallDefaults
}

export interface CallDefaults {
  readonly sequence: SequenceName
  readonly apiId: ApiMode
}

/**
 * `info.license` when the microservice's definition names none: nothing is licensed to the reader
 * unless its owner says so, which SPDX spells as a LicenseRef of the document's own.
 */
export const DEFAULT_LICENSE: LicenseNote = { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' }

export const SHIPPED_DEFAULTS: CallDefaults = { sequence: 'betaParamArrayJsonInOutSequence', apiId: 'ROA' }

/**
 * The sequence whose shapes each media type documents: the default sequence for its own format; for
 * the other format, the one the shipped configuration pairs with it (beta JSON, alpha XML), which a
 * caller then names in X-PLATFORM-Sequence-Name.
 */
export function documentedSequences(defaultSequence: SequenceName): { json: SequenceName; xml: SequenceName } {
  return SEQUENCES[defaultSequence].format === 'json'
    ? { json: defaultSequence, xml: 'alphaParamArrayXmlInOutSequence' }
    : { json: 'betaParamArrayJsonInOutSequence', xml: defaultSequence }
}

/**
 * The error codes a call on a documented method's path can meet, by status (docs/errors.md): those
 * planCall, the body reader, admission and the microservice answer with. Left out: ROUTE_NOT_FOUND
 * and SERVLET_MICROSERVICE (no such path is described), ROA_NEEDS_ONE_PARAMETER (a documented method
 * has one parameter), UNTRUSTED_IDENTITY (the edge removes the identity headers).
 */
const ROA_ERRORS: readonly ErrorCode[] = [
  // The edge serving the description answers a credential it does not accept with 401, also when it
  // is configured to accept none.
  'UNAUTHENTICATED',
  'CLIENT_CERTIFICATE_REQUIRED',
  'MALFORMED_REQUEST',
  'MALFORMED_BODY',
  // The path answers RMC calls too (X-PLATFORM-API-ID: RMC), whose argument array is counted.
  'ARGUMENT_COUNT',
  // OpenAPI has no place for a method a path lacks: the path's other methods' answer is listed here.
  'METHOD_NOT_ALLOWED',
  'BAD_ARGUMENT',
  'UNKNOWN_API_ID',
  'UNKNOWN_SEQUENCE',
  'UNKNOWN_MICROSERVICE',
  'UNKNOWN_SERVICE',
  'UNKNOWN_METHOD',
  'FORMAT_MISMATCH',
  'BODY_TOO_LARGE',
  // A body that stalls (docs/security.md, "Slow bodies").
  'BODY_TIMEOUT',
  'UNSUPPORTED_MEDIA_TYPE',
  'SEQUENCE_FORMAT_MISMATCH',
  'METHOD_FAILED',
  'INTERNAL',
  'BACKEND_CONNECTION_LOST',
  'MICROSERVICE_UNAVAILABLE',
  'OVERLOADED',
  'EXECUTION_TIMEOUT',
  'RATE_LIMITED'
]

/**
 * The OpenAPI 3.1 description of a microservice's documented ROA methods (docs/contract.md: "ROA services can be
 * described"; RMC cannot, its input is an array). A method appears when it carries an operation note
 * and has exactly one parameter, in a remotely enabled service. Schemas and examples follow the wire
 * shapes of the sequences `documentedSequences` picks from the gateway's default, examples written by
 * the serializer the microservice uses for that sequence (its own bean, or the default).
 */
export function describeMicroservice(input: DescribeInput): { [k: string]: Json } {
  const { name, version, definition, aliases } = input
  const defaults = input.defaults ?? SHIPPED_DEFAULTS
  const sequences = documentedSequences(defaults.sequence)
  const beans = { ...defaultSerializers(aliases), ...definition.serializers }
  const media: Media = {
    json: { sequence: sequences.json, serializer: beans[SEQUENCES[sequences.json].bean] },
    xml: { sequence: sequences.xml, serializer: beans[SEQUENCES[sequences.xml].bean] },
    // XML examples are values of the component schemas, which have Jackson's shapes.
    jackson: defaultSerializers(aliases).betaJsonSerializer
  }
  const components = new Components(aliases, SEQUENCES[sequences.xml].family)
  const alphaJson = SEQUENCES[sequences.json].family === 'alpha' ? new AlphaJsonSchemas(aliases) : null
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
        // A tag without a description is a warning of Redocly's recommended rules.
        description: svc.api?.description ?? `The documented ROA methods of service '${svc.name}'`,
        'x-tags': svc.api?.tags ? [...svc.api.tags] : null
      })
    )
    for (const m of documented)
      paths[`/${svc.name}/${m.name}`] = {
        post: operation(svc, m, tag, { components, alphaJson, media, defaults }),
        options: preflight(svc, m, tag)
      }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: `${name}`,
      version,
      license: { ...(definition.license ?? DEFAULT_LICENSE) },
      description: `Remotely enabled ROA methods of microservice '${name}'. ${bodiesNote(media, defaults)} ${IDENTITY_NOTE}`,
      'x-platform-defaults': { sequence: defaults.sequence, apiId: defaults.apiId }
    },
    servers: [
      {
        url: `${EDGE_API_PREFIX}/${name}`,
        description: 'the edge; the same call as /{service}/{method} on the gateway (:8082)'
      }
    ],
    // What the edge enforces is its configuration's: it replaces this declaration with that when it
    // serves the description (declareEdgeSecurity); as generated, no credential is declared.
    security: [...NO_SECURITY.security],
    tags,
    paths,
    components: {
      schemas: { ...components.schemas, ...alphaJson?.schemas, Problem: PROBLEM_SCHEMA },
      headers: RESPONSE_HEADERS
    }
  }
}

interface Media {
  readonly json: { readonly sequence: SequenceName; readonly serializer: Serializer }
  readonly xml: { readonly sequence: SequenceName; readonly serializer: Serializer }
  readonly jackson: Serializer
}

interface Describing {
  readonly components: Components
  readonly alphaJson: AlphaJsonSchemas | null
  readonly media: Media
  readonly defaults: CallDefaults
}

function bodiesNote(media: Media, defaults: CallDefaults): string {
  const json = `application/json bodies are shown as ${media.json.sequence} writes them`
  const xml = `application/xml as ${media.xml.sequence} writes them`
  const header =
    defaults.apiId === 'RMC'
      ? ' This platform calls a method RMC when X-PLATFORM-API-ID is not sent: send ROA for these bodies.'
      : ''
  return `${json}, ${xml}; a call without X-PLATFORM-Sequence-Name is read with ${defaults.sequence}.${header}`
}

function operation(svc: ServiceDefinition, m: MethodDefinition, tag: string, d: Describing): Json {
  const note = m.operation!
  const param = m.params[0]!
  const p = note.parameter ?? {}
  const jsonSchema = (t: Descriptor, nullable: boolean): Schema =>
    d.alphaJson !== null ? d.alphaJson.root(t, nullable) : d.components.schema(t, nullable)
  const json: Schema = { schema: jsonSchema(param, false) }
  const xml: Schema = { schema: d.components.schema(param, false, true) }
  if (p.example !== undefined) {
    withExample(json, wireJson(p.example, param, d.media.json.serializer))
    withXmlExample(xml, p.example, param, d.media)
  }
  const responses: { [k: string]: Json } = {}
  if (m.returns.kind === 'void') responses['204'] = { description: 'the method returned (void)', headers: EVERY_ANSWER }
  else {
    const ok: Schema = { description: note.returns?.description ?? typeName(m.returns), headers: EVERY_ANSWER }
    const jsonOut: Schema = { schema: jsonSchema(m.returns, true) }
    const xmlOut: Schema = { schema: d.components.schema(m.returns, true, true) }
    if (note.returns?.example !== undefined) {
      withExample(jsonOut, wireJson(note.returns.example, m.returns, d.media.json.serializer))
      withXmlExample(xmlOut, note.returns.example, m.returns, d.media)
    }
    ok.content = { 'application/json': jsonOut, 'application/xml': xmlOut }
    responses['200'] = ok
  }
  const errors = m.privileged ? [...ROA_ERRORS, 'PRIVILEGE_DENIED' as const] : ROA_ERRORS
  for (const [status, list] of byStatus(errors)) {
    responses[String(status)] = {
      description: list.map((code) => `${code}: ${codes[code].title}`).join('; '),
      headers: problemHeaders(status, list),
      content: problemContent(status, list)
    }
  }
  // A method's ServiceError chooses its own status (docs/errors.md, METHOD_FAILED).
  responses.default = {
    description: 'METHOD_FAILED with the status the method chose (a ServiceError)',
    headers: EVERY_ANSWER,
    content: problemContent(500, ['METHOD_FAILED'])
  }
  return compact({
    tags: [tag],
    summary: note.summary,
    description: note.notes ?? null,
    operationId: `${svc.name}.${m.name}`,
    parameters: headerParameters(d.defaults),
    requestBody: {
      required: p.required !== false,
      description: [p.name, p.description].filter((x) => x !== undefined).join(': ') || typeName(param),
      content: { 'application/json': json, 'application/xml': xml }
    },
    responses
  })
}

/**
 * A problem in each format the request may have: problem+xml answers an XML request, as
 * renderProblemXml writes it (RFC 9457 appendix B's <problem> in urn:ietf:rfc:7807).
 */
function problemContent(status: number, list: readonly ErrorCode[]): { [k: string]: Json } {
  const schema = (xml: boolean): Json => ({
    allOf: [{ $ref: '#/components/schemas/Problem' }, { properties: { code: { enum: [...list] } } }],
    ...(xml ? { xml: PROBLEM_XML } : {})
  })
  const example = {
    type: `urn:platform:problem:${list[0]!}`,
    title: codes[list[0]!].title,
    status,
    detail: 'what went wrong, in words',
    code: list[0]!,
    requestId: '3f2c9a1e-7b4d-4c55-9a0e-1d2b3c4d5e6f'
  }
  return {
    'application/problem+json': { schema: schema(false), example },
    'application/problem+xml': { schema: schema(true), example }
  }
}

/** What answer.ts, the authenticator and admission add to a problem of this status. */
function problemHeaders(status: number, list: readonly ErrorCode[]): { [k: string]: Json } {
  const out: { [k: string]: Json } = { ...EVERY_ANSWER }
  if (status === 503 || list.includes('RATE_LIMITED')) out[HEADER.retryAfter] = requiredHeader('RetryAfter')
  if (list.includes('RATE_LIMITED')) {
    out[HEADER.rateLimitPolicy] = requiredHeader('RateLimitPolicy')
    out[HEADER.rateLimit] = requiredHeader('RateLimit')
  }
  if (list.includes('METHOD_NOT_ALLOWED')) out[HEADER.allow] = requiredHeader('Allow')
  if (list.includes('UNAUTHENTICATED')) out['WWW-Authenticate'] = ref('WWWAuthenticate')
  return out
}

/** The CORS preflight the gateway answers on every path: 204 with Allow, whatever the route. */
function preflight(svc: ServiceDefinition, m: MethodDefinition, tag: string): Json {
  const ask = (name: string, description: string): Json => ({
    name,
    in: 'header',
    required: false,
    description,
    schema: { type: 'string' }
  })
  return {
    tags: [tag],
    summary: `CORS preflight for ${svc.name}.${m.name}`,
    description:
      'What a browser asks before a cross-origin POST. The Access-Control-* headers come only for an origin the gateway allows (ENTRY_POINTS.WEB_SERVICE_FACADE_HTTP CORS settings).',
    operationId: `${svc.name}.${m.name}.preflight`,
    parameters: [
      ask('Origin', 'the page asking'),
      ask('Access-Control-Request-Method', 'POST'),
      ask('Access-Control-Request-Headers', 'the headers the page means to send')
    ],
    responses: {
      '204': {
        description: 'the methods and headers a call may use',
        headers: {
          ...EVERY_ANSWER,
          [HEADER.allow]: requiredHeader('Allow'),
          [HEADER.allowMethods]: ref('AccessControlAllowMethods'),
          [HEADER.allowHeaders]: ref('AccessControlAllowHeaders'),
          [HEADER.maxAge]: ref('AccessControlMaxAge')
        }
      },
      '403': {
        description: 'CLIENT_CERTIFICATE_REQUIRED: ' + codes.CLIENT_CERTIFICATE_REQUIRED.title,
        headers: EVERY_ANSWER,
        content: problemContent(403, ['CLIENT_CERTIFICATE_REQUIRED'])
      }
    }
  }
}

function ref(name: string): Json {
  return { $ref: `#/components/headers/${name}` }
}

/** A header component as one answer always has it (OpenAPI's header `required` is per use only via its object). */
function requiredHeader(name: string): Json {
  return ref(`${name}.required`)
}

/** Written on every answer (respond.ts): the request id always; CORS and rate limit fields when they apply. */
const EVERY_ANSWER: { [k: string]: Json } = {
  [HEADER.requestId]: ref('RequestId'),
  [HEADER.rateLimitPolicy]: ref('RateLimitPolicy'),
  [HEADER.rateLimit]: ref('RateLimit'),
  [HEADER.allowOrigin]: ref('AccessControlAllowOrigin'),
  [HEADER.exposeHeaders]: ref('AccessControlExposeHeaders'),
  [HEADER.vary]: ref('Vary')
}

const header = (description: string, required = false, schema: Json = { type: 'string' }): Json => ({
  description,
  required,
  schema
})

/** The response headers the gateway writes (src/common/contract/http-names.ts names them). */
const RESPONSE_HEADERS: { [k: string]: Json } = {
  RequestId: header("the caller's X-PLATFORM-Request-ID, or the one the gateway generated", true),
  RateLimitPolicy: header(
    'the rate limit rule matched (draft-ietf-httpapi-ratelimit-headers), when RATE_LIMITS.headers is on or on a 429'
  ),
  'RateLimitPolicy.required': header('the rate limit rule that refused the call', true),
  RateLimit: header('the calls left and the seconds to the reset, when RATE_LIMITS.headers is on or on a 429'),
  'RateLimit.required': header('the calls left and the seconds to the reset', true),
  'RetryAfter.required': header('seconds to wait before calling again', true, { type: 'string', pattern: '^[0-9]+$' }),
  'Allow.required': header('the methods the path answers', true, { type: 'string', const: 'POST, OPTIONS' }),
  WWWAuthenticate: header('the credential the edge asks for, when it accepts some (docs/security.md)'),
  AccessControlAllowOrigin: header('the calling origin, or *, when the gateway allows it'),
  AccessControlExposeHeaders: header('the answer headers a page may read, for an allowed origin'),
  Vary: header('Origin, when the allowed origin depends on it'),
  AccessControlAllowMethods: header('POST, OPTIONS, for an allowed origin'),
  AccessControlAllowHeaders: header('the request headers a page may send, for an allowed origin'),
  AccessControlMaxAge: header('seconds a browser may keep this preflight, for an allowed origin')
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
const IDENTITY_NOTE = `Through the edge, ${IDENTITY_HEADERS.join(', ')} are not taken from the caller: the edge sets the user, session, application and privilege names from a credential (X-API-Key, a bearer token or a client certificate, when the platform accepts them) and the IP from the connection.`

/** The headers a caller through the edge may set (the identity headers are the edge's to set). */
function headerParameters(defaults: CallDefaults): Json[] {
  const sequences = documentedSequences(defaults.sequence)
  return PLATFORM_HEADER_NOTES.filter((h) => !(IDENTITY_HEADERS as readonly string[]).includes(h.name)).map((h) =>
    compact({
      name: h.name,
      in: 'header',
      // Without it this platform would read the body as an RMC argument array.
      required: h.name === 'X-PLATFORM-API-ID' && defaults.apiId !== 'ROA',
      description: headerNote(h.name, h.description, defaults),
      schema:
        h.name === 'X-PLATFORM-Sequence-Name'
          ? // Only the sequences whose shapes the media types describe: a client generated from
            // the description could neither write nor read another's bodies.
            { type: 'string', enum: [...new Set([sequences.json, sequences.xml])], default: defaults.sequence }
          : h.name === 'X-PLATFORM-API-ID'
            ? defaults.apiId === 'ROA'
              ? { type: 'string', enum: ['ROA'], default: 'ROA' }
              : { type: 'string', enum: ['ROA'] }
            : { type: 'string' }
    })
  )
}

/** The two headers whose defaults are this platform's, described as they are here. */
function headerNote(name: string, shipped: string, defaults: CallDefaults): string {
  if (name === 'X-PLATFORM-API-ID')
    return `Invocation mode: ROA for these methods; a call without this header is ${defaults.apiId} here (case sensitive)`
  if (name === 'X-PLATFORM-Sequence-Name')
    return `Sequence that reads the body and writes the answer; without this header, ${defaults.sequence}, which reads ${SEQUENCES[defaults.sequence].format.toUpperCase()}: a body in the other format names a sequence of its format`
  return shipped
}

/**
 * The example as the sequence's serializer writes it (the microservice's own bean when it has one);
 * undefined when that serializer cannot write it: the description is still made, without the example.
 */
function wireText(value: unknown, d: Descriptor, serializer: Serializer): string | undefined {
  try {
    const out = serializer.serialize(value, d)
    return typeof out === 'string' ? out : Buffer.from(out).toString()
  } catch {
    return undefined
  }
}

function wireJson(value: unknown, d: Descriptor, serializer: Serializer): Json | undefined {
  const text = wireText(value, d, serializer)
  if (text === undefined) return undefined
  try {
    return JSON.parse(text) as Json
  } catch {
    return undefined
  }
}

/**
 * An XML example as OpenAPI 3.x gives one: the value itself (Jackson's shape, which the component
 * schemas have), which tools render as XML with the schemas' `xml` names; only when the sequence's
 * serializer can write it, so an example is never shown that the XML side would refuse.
 */
function withXmlExample(out: Schema, value: unknown, d: Descriptor, media: Media): void {
  const text = wireText(value, d, media.xml.serializer)
  const example = text === undefined ? undefined : wireJson(value, d, media.jackson)
  if (text === undefined || example === undefined) return
  out.example = example
  // The text itself too, for a client that sends it as it is (OpenAPI 3.2 calls it serializedValue).
  out[SERIALIZED_EXAMPLE] = text
}

/** The extension on an XML media type that holds its example as the serializer writes it. */
export const SERIALIZED_EXAMPLE = 'x-serialized-example'

/** Sets `example` on a media type object unless there is none. */
function withExample(media: Schema, example: Json | undefined): void {
  if (example !== undefined) media.example = example
}

/**
 * Named component schemas for classes; one per class, shared by JSON (Jackson's shapes) and XML
 * (xml names annotate them): XStream's element names for alpha XML, Jackson's for beta XML.
 */
class Components {
  readonly schemas: { [k: string]: Json } = {}
  private readonly xmlCtx: { aliases: AliasMap; naming: typeof XML_NAMING }

  constructor(
    aliases: AliasMap,
    private readonly xmlFamily: SequenceFamily
  ) {
    this.xmlCtx = { aliases, naming: XML_NAMING }
  }

  /** The schema of a value declared `d`; `nullable` where Java lets it be null. */
  schema(d: Descriptor, nullable: boolean, root = false): Schema {
    const s = this.plain(d)
    // A root element is named by its type: alpha (alias, int, list, ...), beta (In, Integer, ArrayList);
    // a root collection wraps its items in that element.
    const wrapped: Schema = d.kind === 'list' || d.kind === 'array' ? { wrapped: true } : {}
    if (root && this.xmlFamily === 'beta') s.xml = { name: betaRootName(d), ...wrapped }
    else if (root && d.kind !== 'object') s.xml = { name: alphaTypeName(d, this.xmlCtx), ...wrapped }
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
        // Jackson names the items of a top-level list <item>, of a field by the field (see component).
        item.xml = { name: this.xmlFamily === 'beta' ? 'item' : alphaTypeName(d.item, this.xmlCtx) }
        // A collection of collections: each inner one is an element around its own items.
        if (d.item.kind === 'list' || d.item.kind === 'array') item.xml.wrapped = true
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
      if (this.xmlFamily === 'beta') betaFieldXml(s, f.type, f.name)
      else if (f.attribute) s.xml = { name: xmlName, attribute: true }
      else if (f.implicit !== undefined && (f.type.kind === 'list' || f.type.kind === 'array')) {
        // The items are elements of the object itself, each named by the implicit collection.
        s.xml = { name: f.implicit, wrapped: false }
        const items = s.items
        if (items !== null && typeof items === 'object' && !Array.isArray(items)) items.xml = { name: f.implicit }
      } else if (f.type.kind === 'list' || f.type.kind === 'array') s.xml = { name: xmlName, wrapped: true }
      // A field of a class type is named by the field, not by the class's own xml name.
      else if (xmlName !== f.name || f.type.kind === 'object') s.xml = { name: xmlName }
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
      xml: { name: this.xmlFamily === 'beta' ? betaRootName(d) : alphaTypeName(d, this.xmlCtx) }
    })
    return key
  }
}

/** Jackson XML ignores XStream's names: a field is an element of its own name, a list's items too. */
function betaFieldXml(s: Schema, t: Descriptor, field: string): void {
  // A field of a class type is named by the field, not by the class's own xml name.
  if (t.kind === 'object') s.xml = { name: field }
  if (t.kind !== 'list' && t.kind !== 'array') return
  const items = s.items
  if (items !== null && typeof items === 'object' && !Array.isArray(items)) items.xml = { wrapped: false }
  s.xml = { wrapped: true }
}

/**
 * alpha JSON's shapes (XStream through Jettison's mapped convention): the root is an object of one
 * member named as XStream names the type; a collection is an array of objects, each of one member
 * named by its items' type, holding one item or an array of consecutive items of that name; a null
 * field is left out; a text that looks like a number or a boolean is written as one.
 */
class AlphaJsonSchemas {
  readonly schemas: { [k: string]: Json } = {}
  private readonly ctx: { aliases: AliasMap; naming: typeof JSON_NAMING }

  constructor(aliases: AliasMap) {
    this.ctx = { aliases, naming: JSON_NAMING }
  }

  /** `nullable`: a null is written {"null": ""}. */
  root(d: Descriptor, nullable = false): Schema {
    if (d.kind === 'void') return {}
    const name = alphaTypeName(d, this.ctx)
    const value: Schema = {
      type: 'object',
      properties: { [name]: this.value(d) },
      required: [name],
      additionalProperties: false,
      description: `${typeName(d)} as XStream and Jettison write it`
    }
    if (!nullable || !isReference(d)) return value
    const none: Schema = {
      type: 'object',
      properties: { null: { const: '' } },
      required: ['null'],
      additionalProperties: false
    }
    return { anyOf: [value, none] }
  }

  private value(d: Descriptor): Schema {
    switch (d.kind) {
      case 'scalar':
        return d.type === 'String' || d.type === 'char' || d.type === 'Character'
          ? {
              type: ['string', 'number', 'boolean'],
              description: `${d.type}: Jettison writes a numeric text as a number`
            }
          : d.type === 'boolean' || d.type === 'Boolean'
            ? { type: 'boolean' }
            : { type: ['number', 'string'], description: d.type }
      case 'date':
        return { type: 'string', description: 'java.util.Date: `2023-11-14 22:13:20.0 UTC`' }
      case 'localDate':
        return { type: 'string', format: 'date', description: 'java.time.LocalDate' }
      case 'object':
        return { $ref: `#/components/schemas/${this.component(d)}` }
      case 'list':
      case 'array': {
        const itemName = alphaTypeName(d.item, this.ctx)
        const item = this.value(d.item)
        return {
          type: 'array',
          description: `${typeName(d)}: [{"${itemName}": item or [items], "null": ""}]; an empty one is [""]`,
          items: {
            anyOf: [
              {
                type: 'object',
                // Null items are elements named null, grouped as Jettison groups a name.
                properties: {
                  [itemName]: { anyOf: [item, { type: 'array', items: item }] },
                  null: { anyOf: [{ const: '' }, { type: 'array', items: { const: '' } }] }
                },
                additionalProperties: false
              },
              { const: '' }
            ]
          }
        }
      }
      case 'map': {
        // An entry is an object of two members, the key and the value, each named by its type.
        const entry: Schema = { type: 'object', description: 'the key and the value, each named by its type' }
        return {
          type: 'array',
          description: `${typeName(d)}: [{"entry": one entry or [entries]}]`,
          items: {
            anyOf: [
              {
                type: 'object',
                properties: { entry: { anyOf: [entry, { type: 'array', items: entry }] } },
                additionalProperties: false
              },
              { const: '' }
            ]
          }
        }
      }
      case 'any':
      case 'void':
        return { description: 'java.lang.Object: an object of one member named by its runtime type' }
    }
  }

  private component(d: ObjectDescriptor): string {
    const key = `${d.className.replace(/[^A-Za-z0-9._-]/g, '_')}.alphaJson`
    if (this.schemas[key] !== undefined) return key
    this.schemas[key] = {}
    const properties: { [k: string]: Json } = {}
    for (const f of d.fields) {
      const name = f.alias ?? JSON_NAMING.field(f.name)
      if (f.attribute) properties[`@${name}`] = this.value(f.type)
      else if (f.implicit !== undefined && (f.type.kind === 'list' || f.type.kind === 'array')) {
        // An implicit collection's items are elements of the object itself, one or several of one name.
        const item = this.value(f.type.item)
        properties[f.implicit] = { anyOf: [item, { type: 'array', items: item }] }
      } else properties[name] = this.value(f.type)
    }
    this.schemas[key] = {
      type: 'object',
      title: `${d.className} (alpha JSON)`,
      properties,
      additionalProperties: false
    }
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

/** renderProblemXml's root element. */
const PROBLEM_XML: Json = { name: 'problem', namespace: 'urn:ietf:rfc:7807' }

const PROBLEM_SCHEMA: Json = {
  type: 'object',
  xml: PROBLEM_XML,
  description: 'RFC 9457 problem details; `code` is stable (the error table).',
  properties: {
    type: { type: 'string' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    code: { type: 'string', enum: Object.keys(codes) },
    requestId: { type: 'string' }
  },
  required: ['type', 'title', 'status', 'detail', 'code', 'requestId']
}
