// Descriptions generated from descriptors of every kind the serializers support (the conformance
// types included), each held to the OpenAPI 3.1 schema; what appears and what does not; examples in
// the wire shapes and valid against their own schemas.
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { t, type Descriptor } from '../../src/descriptors/types'
import { method, service, defineMicroservice, type MethodDefinition } from '../../src/runtime/define'
import { describeMicroservice } from '../../src/runtime/openapi'
import { In, Out, InPlus, Outer, Bag, Prims, Snake, Inner, Holder, Annotated } from '../conformance/types'
import { openApiErrors, schemaChecker, pointerKey } from '../helpers/openapi'

const KINDS: Array<[string, Descriptor, unknown]> = [
  ['int', t.int, 6],
  ['Integer', t.Integer, 6],
  ['long', t.long, 9007199254740993n],
  ['Long', t.Long, 42n],
  ['double', t.double, 1.5],
  ['Double', t.Double, 2.5],
  ['boolean', t.boolean, true],
  ['Boolean', t.Boolean, false],
  ['char', t.char, 'x'],
  ['Character', t.Character, 'y'],
  ['String', t.String, 'hello'],
  ['Date', t.Date, new Date(1700000000000)],
  ['In', In, { a: 2, b: 3 }],
  ['Out', Out, { result: 6 }],
  ['InPlus', InPlus, { a: 1, b: 2, c: 3 }],
  ['Outer', Outer, { inner: { a: 1, b: 2 }, name: 'n' }],
  ['Bag', Bag, { items: [1, 2, 3] }],
  ['Prims', Prims, { i: 1, l: 2n, d: 3.5, flag: true, c: 'z' }],
  ['Snake', Snake, { first_name: 'Ada' }],
  ['Inner', Inner, { x: 7 }],
  ['Holder', Holder, { value: null, items: [1] }],
  ['Annotated', Annotated, { id: 7, name: 'n', secret: null, nums: [1, 2] }],
  ['List<Integer>', t.list(t.Integer), [1, null, 3]],
  ['LinkedList<String>', t.list(t.String, 'java.util.LinkedList'), ['a']],
  ['List<List<In>>', t.list(t.list(In)), [[{ a: 1, b: 2 }]]],
  ['Integer[]', t.array(t.Integer), [1, 2]],
  ['In[]', t.array(In), [{ a: 1, b: 2 }]],
  ['Map<String,Integer>', t.map(t.Integer, 'java.util.LinkedHashMap'), new Map([['a', 1]])],
  ['Map<String,In>', t.map(In), new Map([['k', { a: 1, b: 2 }]])]
]

function documented(name: string, d: Descriptor, example: unknown): MethodDefinition {
  return method(name, {
    params: [d],
    returns: d,
    handler: (_ctx: unknown, v: unknown) => v,
    operation: { summary: `echoes a ${name}`, parameter: { description: name, example }, returns: { example } }
  } as never)
}

const methods = KINDS.map(([, d, example], k) => documented(`m${k}`, d, example))
const definition = defineMicroservice({
  services: [
    service('kinds', methods, { title: 'kinds', description: 'every descriptor kind', tags: ['t'] }),
    service('mixed', [
      method('rmcOnly', {
        params: [t.Integer, t.Integer],
        returns: t.Integer,
        handler: () => 1,
        operation: { summary: 'two parameters' }
      }),
      method('undocumented', { params: [t.Integer], returns: t.Integer, handler: () => 1 }),
      method('nothing', {
        params: [t.Integer],
        returns: t.void,
        handler: () => undefined,
        operation: { summary: 'void' }
      }),
      method('guarded', {
        params: [In],
        returns: Out,
        privileged: true,
        handler: () => ({ result: 1 }),
        operation: { summary: 'privileged' }
      }),
      method('anything', {
        params: [t.Object([In])],
        returns: t.Object(),
        handler: () => null,
        operation: { summary: 'Object slots' }
      })
    ]),
    service('hidden', [
      method('secret', {
        params: [t.String],
        returns: t.String,
        handler: () => '',
        operation: { summary: 'not enabled' }
      })
    ])
  ],
  platformRegularExpressionToRemotelyEnabled: ['kinds', 'mixed'],
  aliases: { 'com.example.In': 'in', 'com.example.Out': 'out' }
})
const aliases = new Map(Object.entries(definition.aliases ?? {}))
const doc = describeMicroservice({ name: 'typekit', version: '2.0.0', definition, aliases }) as {
  paths: Record<string, { post: any }> // eslint-disable-line @typescript-eslint/no-explicit-any
  components: { schemas: Record<string, unknown> }
  servers: Array<{ url: string }>
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
    assert.equal(doc.servers[0]!.url, '/_eapi/ELASTIC_HTTP/typekit')
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
    assert.ok(doc.paths['/mixed/guarded']!.post.responses['403'] !== undefined)
    assert.equal(doc.paths['/kinds/m0']!.post.responses['403'], undefined)
    const problem = doc.paths['/kinds/m0']!.post.responses['404'].content['application/problem+json'].schema
    assert.deepEqual(problem.allOf[1].properties.code.enum, [
      'UNKNOWN_MICROSERVICE',
      'UNKNOWN_SERVICE',
      'UNKNOWN_METHOD'
    ])
  })

  test('the nine X-PLATFORM-* headers are parameters; the sequence header lists the four sequences', () => {
    const params = doc.paths['/kinds/m0']!.post.parameters as Array<{ name: string; schema: { enum?: string[] } }>
    assert.equal(params.length, 9)
    assert.deepEqual(params.find((p) => p.name === 'X-PLATFORM-Sequence-Name')!.schema.enum!.length, 4)
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
      assert.equal(typeof op.requestBody.content['application/xml'].example, 'string', name)
    }
    const inOp = doc.paths['/kinds/m12']!.post
    assert.deepEqual(inOp.requestBody.content['application/json'].example, { a: 2, b: 3 })
    assert.equal(inOp.requestBody.content['application/xml'].example, '<in>\n  <a>2</a>\n  <b>3</b>\n</in>')
    assert.equal(doc.paths['/kinds/m11']!.post.requestBody.content['application/json'].example, 1700000000000)
  })

  test('a value that breaks a schema is refused by the checker (the check can fail)', () => {
    const check = schemaChecker(doc)
    assert.notDeepEqual(check('#/components/schemas/com.example.In', { a: 'x', b: 1 }), [])
    assert.notDeepEqual(check('#/components/schemas/com.example.In', { a: 1, c: 1 }), [])
  })
})
