// Descriptions generated from descriptors of every kind the serializers support (the conformance
// types included), each held to the OpenAPI 3.1 schema; what appears and what does not; examples in
// the wire shapes and valid against their own schemas.
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { describeMicroservice, documentedSequences } from '../../../../src/microservice/host/openapi'
import { defaultSerializers } from '../../../../src/microservice/serializers'
import { SEQUENCES, type SequenceName } from '../../../../src/common/contract/vocabulary'
import definition, { KINDS } from '../../../fixtures/dockit'
import { openApiErrors, schemaChecker, pointerKey, renderXml } from '../../../helpers/inputs/openapi'
import { IDENTITY_HEADERS } from '../../../../src/common/contract/http-names'

const aliases = new Map(Object.entries(definition.aliases ?? {}))
const doc = describeMicroservice({ name: 'dockit', version: '2.0.0', definition, aliases }) as {
  paths: Record<string, { post: any; options: any }> // eslint-disable-line @typescript-eslint/no-explicit-any
  components: { schemas: Record<string, unknown> }
  servers: Array<{ url: string }>
  info: { description: string }
}

describe('generated description', () => {
  test('is a valid OpenAPI 3.1 document', async () => {
    assert.deepEqual(await openApiErrors(doc), [])
  })

  test('a broken document is caught by the validator (the check can fail)', async () => {
    const broken = JSON.parse(JSON.stringify(doc)) as {
      paths: Record<string, { post: { parameters: Array<{ in: string }> } }>
    }
    broken.paths['/kinds/m0']!.post.parameters[0]!.in = 'body' // OpenAPI 2's place for a body: not in 3.1
    assert.notDeepEqual(await openApiErrors(broken), [])
  })

  test('documented ROA methods of remotely enabled services only; base path /_eapi/ELASTIC_HTTP/{ms}', () => {
    assert.equal(doc.servers[0]!.url, '/_eapi/ELASTIC_HTTP/dockit')
    const paths = Object.keys(doc.paths).sort()
    assert.equal(paths.length, KINDS.length + 3)
    for (const absent of ['/mixed/rmcOnly', '/mixed/undocumented', '/hidden/secret'])
      assert.ok(!paths.includes(absent), absent)
    for (const present of ['/mixed/nothing', '/mixed/guarded', '/mixed/anything'])
      assert.ok(paths.includes(present), present)
  })

  test('void answers 204 without content; a privileged method documents 403; every operation documents problem bodies', () => {
    assert.deepEqual(
      Object.keys(doc.paths['/mixed/nothing']!.post.responses).filter((s) => s.startsWith('2')),
      ['204']
    )
    const codes403 = (path: string): string[] =>
      doc.paths[path]!.post.responses['403'].content['application/problem+json'].schema.allOf[1].properties.code.enum
    assert.ok(codes403('/mixed/guarded').includes('PRIVILEGE_DENIED'))
    assert.deepEqual(codes403('/kinds/m0'), ['CLIENT_CERTIFICATE_REQUIRED'])
    for (const type of ['application/problem+json', 'application/problem+xml']) {
      const problem = doc.paths['/kinds/m0']!.post.responses['404'].content[type].schema
      assert.deepEqual(problem.allOf[1].properties.code.enum, [
        'UNKNOWN_MICROSERVICE',
        'UNKNOWN_SERVICE',
        'UNKNOWN_METHOD'
      ])
    }
    // As renderProblemXml writes it: <problem xmlns="urn:ietf:rfc:7807">.
    assert.deepEqual(doc.paths['/kinds/m0']!.post.responses['404'].content['application/problem+xml'].schema.xml, {
      name: 'problem',
      namespace: 'urn:ietf:rfc:7807'
    })
    assert.deepEqual(doc.paths['/kinds/m0']!.post.responses['405'].headers.Allow, {
      $ref: '#/components/headers/Allow.required'
    })
    assert.deepEqual(Object.keys(doc.paths['/kinds/m0']!.options.responses), ['204', '403'])
  })

  test('the four X-PLATFORM headers a caller through the edge sets are parameters; the sequence header lists the two whose shapes are described', () => {
    const params = doc.paths['/kinds/m0']!.post.parameters as Array<{ name: string; schema: { enum?: string[] } }>
    assert.deepEqual(
      params.map((p) => p.name),
      ['X-PLATFORM-API-ID', 'X-PLATFORM-Locale', 'X-PLATFORM-Sequence-Name', 'X-PLATFORM-Request-ID']
    )
    assert.deepEqual(params.find((p) => p.name === 'X-PLATFORM-Sequence-Name')!.schema.enum, [
      'betaParamArrayJsonInOutSequence',
      'alphaParamArrayXmlInOutSequence'
    ])
  })

  test('the identity headers the edge drops are not offered, and the description says who sets them', () => {
    // The description is served by the edge, which removes these from every outside client.
    for (const h of IDENTITY_HEADERS) {
      for (const [path, item] of Object.entries(doc.paths)) {
        const names = (item.post.parameters as Array<{ name: string }>).map((p) => p.name)
        assert.ok(!names.includes(h), `${path} offers ${h}`)
      }
      assert.ok(String(doc.info.description).includes(h), h)
    }
    assert.match(
      String(doc.info.description),
      /the edge sets the user, session, application and privilege names from a credential/
    )
  })

  test('scalars, nullability and names as Java and the serializers have them', () => {
    const body = (k: number): { schema: Record<string, unknown> } =>
      doc.paths[`/kinds/m${k}`]!.post.requestBody.content['application/json']
    assert.deepEqual(body(0).schema, { type: 'integer', format: 'int32' }) // int: never null
    assert.deepEqual(body(2).schema, { type: 'integer', format: 'int64' })
    const prims = doc.components.schemas['com.example.Prims'] as { required: string[] }
    assert.deepEqual(prims.required, ['i', 'l', 'd', 'flag', 'c'])
    const inSchema = doc.components.schemas['com.example.In'] as {
      properties: { a: { type: unknown } }
      xml: { name: string }
      additionalProperties: boolean
    }
    assert.deepEqual(inSchema.properties.a.type, ['integer', 'null'])
    assert.equal(inSchema.xml.name, 'in')
    assert.equal(inSchema.additionalProperties, false)
    const snake = doc.components.schemas['com.example.Snake'] as {
      properties: { first_name: { xml: { name: string } } }
    }
    assert.equal(snake.properties.first_name.xml.name, 'first__name')
    assert.ok(doc.components.schemas['com.example.Container_Inner'] !== undefined, 'nested class as a named component')
  })

  test('examples are in the wire shapes (beta JSON, alpha XML) and valid against their own schemas', () => {
    const check = schemaChecker(doc)
    for (const [k, [name]] of KINDS.entries()) {
      const op = doc.paths[`/kinds/m${k}`]!.post
      const json = op.requestBody.content['application/json']
      assert.deepEqual(
        check(`#/paths/${pointerKey(`/kinds/m${k}`)}/post/requestBody/content/application~1json/schema`, json.example),
        [],
        name
      )
      assert.deepEqual(
        check(
          `#/paths/${pointerKey(`/kinds/m${k}`)}/post/responses/200/content/application~1json/schema`,
          op.responses['200'].content['application/json'].example
        ),
        [],
        name
      )
      // OpenAPI 3.x gives an XML example as the value, which must fit the schema like any other.
      assert.deepEqual(
        check(
          `#/paths/${pointerKey(`/kinds/m${k}`)}/post/requestBody/content/application~1xml/schema`,
          op.requestBody.content['application/xml'].example
        ),
        [],
        name
      )
      // The same value as the JSON example: the schemas both share are Jackson's shapes.
      assert.deepEqual(op.requestBody.content['application/xml'].example, json.example, name)
    }
    const inOp = doc.paths['/kinds/m12']!.post
    assert.deepEqual(inOp.requestBody.content['application/json'].example, { a: 2, b: 3 })
    assert.deepEqual(inOp.requestBody.content['application/xml'].example, { a: 2, b: 3 })
    const at = `#/paths/${pointerKey('/kinds/m12')}/post/requestBody/content/application~1xml/schema`
    assert.equal(renderXml(doc, at, { a: 2, b: 3 }), '<in><a>2</a><b>3</b></in>')
    assert.equal(doc.paths['/kinds/m11']!.post.requestBody.content['application/json'].example, 1700000000000)
  })

  test('a value that breaks a schema is refused by the checker (the check can fail)', () => {
    const check = schemaChecker(doc)
    assert.notDeepEqual(check('#/components/schemas/com.example.In', { a: 'x', b: 1 }), [])
    assert.notDeepEqual(check('#/components/schemas/com.example.In', { a: 1, c: 1 }), [])
  })
})

/**
 * Kinds whose XML the OpenAPI `xml` object cannot spell: a Date is epoch milliseconds in the shared
 * (Jackson) schema but a formatted text in XML; a map's entries are elements of XStream's and Jackson's
 * own making, which `additionalProperties` cannot name. (Beta XML cannot read a List<List<In>> at all.)
 */
const XML_NOT_RENDERED = new Set(['Date', 'Map<String,Integer>', 'Map<String,In>'])

/**
 * A read value without its nulls: the `xml` object has no spelling for a null (a rendered sample
 * leaves it out), while XStream writes a null item <null/> and Jackson a null field <value/>, which
 * it reads back as '' in an Object slot.
 */
function withoutNulls(v: unknown): unknown {
  const absent = (x: unknown): boolean => x === null || x === undefined || x === ''
  if (Array.isArray(v)) return v.filter((x) => !absent(x)).map(withoutNulls)
  if (v === null || typeof v !== 'object' || v instanceof Map || v instanceof Date) return v
  return Object.fromEntries(
    Object.entries(v)
      .filter(([, x]) => !absent(x))
      .map(([k, x]) => [k, withoutNulls(x)])
  )
}

/** The dockit description as a platform with these defaults makes it. */
function describedWith(sequence: SequenceName, apiId: 'ROA' | 'RMC' = 'ROA'): ReturnType<typeof describeMicroservice> {
  return describeMicroservice({ name: 'dockit', version: '2.0.0', definition, aliases, defaults: { sequence, apiId } })
}

describe("a description follows the gateway's configured default sequence", () => {
  const sequences = Object.keys(SEQUENCES) as SequenceName[]
  const beans = defaultSerializers(aliases)
  for (const sequence of sequences) {
    const d = describedWith(sequence) as typeof doc & { info: { 'x-platform-defaults': unknown } }
    const shown = documentedSequences(sequence)

    test(`${sequence}: a valid document; its media types show ${shown.json} and ${shown.xml}`, async () => {
      assert.deepEqual(await openApiErrors(d), [])
      assert.equal(shown[SEQUENCES[sequence].format], sequence)
      assert.deepEqual(d.info['x-platform-defaults'], { sequence, apiId: 'ROA' })
      assert.ok(d.info.description.includes(`a call without X-PLATFORM-Sequence-Name is read with ${sequence}`))
      const header = d.paths['/kinds/m12']!.post.parameters.find(
        (h: { name: string }) => h.name === 'X-PLATFORM-Sequence-Name'
      )
      assert.equal(header.schema.default, sequence)
      assert.deepEqual(header.schema.enum, [shown.json, shown.xml])
    })

    test(`${sequence}: every example is what that sequence's serializer writes, and fits its JSON schema`, () => {
      const check = schemaChecker(d)
      for (const [k, [name, type, value]] of KINDS.entries()) {
        const op = d.paths[`/kinds/m${k}`]!.post
        const content = op.requestBody.content
        const write = (seq: SequenceName): string => String(beans[SEQUENCES[seq].bean].serialize(value, type))
        assert.deepEqual(content['application/json'].example, JSON.parse(write(shown.json)), name)
        // Beside the value, the text the sequence's serializer writes (for clients that send it as is).
        assert.equal(content['application/xml']['x-serialized-example'], write(shown.xml), name)
        if (
          !XML_NOT_RENDERED.has(name) &&
          !(shown.xml === 'betaParamArrayXmlInOutSequence' && name === 'List<List<In>>')
        ) {
          // The XML a tool renders from the example and the schema's xml names is what the
          // sequence's own serializer reads as the value it writes itself.
          const xmlAt = `#/paths/${pointerKey(`/kinds/m${k}`)}/post/requestBody/content/application~1xml/schema`
          const rendered = renderXml(d, xmlAt, content['application/xml'].example)
          const read = (text: string): unknown => beans[SEQUENCES[shown.xml].bean].deserialize(Buffer.from(text), type)
          assert.deepEqual(
            withoutNulls(read(rendered)),
            withoutNulls(read(write(shown.xml))),
            `${name}: ${rendered} / ${write(shown.xml)}`
          )
        }
        const at = `#/paths/${pointerKey(`/kinds/m${k}`)}/post/requestBody/content/application~1json/schema`
        assert.deepEqual(check(at, content['application/json'].example), [], `${name}: ${write(shown.json)}`)
      }
    })
  }

  test('RMC by default: X-PLATFORM-API-ID becomes required and the description says to send ROA', () => {
    const d = describedWith('betaParamArrayJsonInOutSequence', 'RMC') as typeof doc
    const apiId = d.paths['/kinds/m12']!.post.parameters.find((h: { name: string }) => h.name === 'X-PLATFORM-API-ID')
    assert.equal(apiId.required, true)
    assert.match(d.info.description, /send ROA for these bodies/)
    assert.equal(
      doc.paths['/kinds/m12']!.post.parameters.find((h: { name: string }) => h.name === 'X-PLATFORM-API-ID').required,
      false
    )
  })

  test('beta XML names the root and list items as Jackson does; alpha JSON wraps the root in its type name', () => {
    const xml = describedWith('betaParamArrayXmlInOutSequence', 'ROA') as typeof doc
    const xmlAt = `#/paths/${pointerKey('/kinds/m12')}/post/requestBody/content/application~1xml/schema`
    const example = xml.paths['/kinds/m12']!.post.requestBody.content['application/xml'].example
    assert.equal(renderXml(xml, xmlAt, example), '<In><a>2</a><b>3</b></In>')
    assert.deepEqual((xml.components.schemas['com.example.In'] as { xml: unknown }).xml, { name: 'In' })
    const json = describedWith('alphaParamArrayJsonInOutSequence', 'ROA') as typeof doc
    assert.deepEqual(json.paths['/kinds/m12']!.post.requestBody.content['application/json'].example, {
      in: { a: 2, b: 3 }
    })
    const check = schemaChecker(json)
    const at = `#/paths/${pointerKey('/kinds/m12')}/post/requestBody/content/application~1json/schema`
    assert.notDeepEqual(check(at, { a: 2, b: 3 }), [], 'the beta shape is not the alpha one')
  })
})

describe('descriptions in edge cases of the configured shapes', () => {
  test('alpha JSON: a nullable answer may be {"null": ""}, as XStream and Jettison write a null', () => {
    const d = describedWith('alphaParamArrayJsonInOutSequence', 'ROA') as typeof doc
    const check = schemaChecker(d)
    const at = `#/paths/${pointerKey('/kinds/m12')}/post/responses/200/content/application~1json/schema`
    assert.deepEqual(check(at, { null: '' }), [])
    assert.deepEqual(check(at, { in: { a: 1, b: 2 } }), [])
    assert.notDeepEqual(check(at, { null: 'x' }), [])
  })

  test("a microservice's own serializer that cannot write an example: the description is made without it", async () => {
    const refusing = {
      format: 'json' as const,
      serialize(): string {
        throw new Error('this bean writes nothing')
      },
      deserialize(): unknown {
        return null
      }
    }
    const d = describeMicroservice({
      name: 'dockit',
      version: '2.0.0',
      definition: { ...definition, serializers: { betaJsonSerializer: refusing } },
      aliases
    }) as typeof doc
    assert.deepEqual(await openApiErrors(d), [])
    const content = d.paths['/kinds/m12']!.post.requestBody.content
    assert.equal(content['application/json'].example, undefined)
    assert.deepEqual(content['application/xml'].example, { a: 2, b: 3 })
  })
})
