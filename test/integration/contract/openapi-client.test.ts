// time limit: 300 s: a platform, openapi-typescript per description and two tsc runs, on a shared machine
// A TypeScript client generated from each description the edge serves (openapi-typescript), compiled
// standalone with the project's tsc against the README's calls, then run against the running platform
// through the edge. The description is what API teams generate clients from: a schema, media type or
// header that does not match what the gateway does shows here as a client that does not compile or a
// call that does not answer as its types say. A second client file with a wrong body and a wrong
// sequence must not compile, so the generated types are known to constrain calls at all.
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { tmpdir } from 'node:os'
import { startPlatform, exampleAt, TESTKIT_DIR, type RunningPlatform } from '../../helpers/platform'
import { BIN } from '../../helpers/processes/prism'
import { runFile, type Ran } from '../../helpers/exec'
import type { GatewayIndex } from '../../../src/gateway/http/front-pages'

interface Description {
  readonly servers: ReadonlyArray<{ readonly url: string }>
  readonly paths: Record<
    string,
    {
      readonly post: {
        readonly parameters?: ReadonlyArray<{ readonly name: string; readonly schema: { readonly enum?: string[] } }>
        readonly requestBody: { readonly content: { readonly 'application/json': { readonly example: unknown } } }
        readonly responses: {
          readonly 200?: { readonly content?: { readonly 'application/json'?: { example: unknown } } }
        }
      }
    }
  >
}

/** What the test sees of the compiled generic client: the generated types do not exist when it is compiled. */
interface GenericClient {
  call(base: string, path: string, body: unknown): Promise<unknown>
}

/** What the test sees of the compiled README client (the types it is written with are in README_CLIENT). */
interface ReadmeClient {
  multiply(base: string, body: { a: number; b: number }): Promise<unknown>
  product(base: string, a: number, b: number): Promise<number>
  multiplyXml(base: string, xml: string, headers: Record<string, string>): Promise<{ status: number; text: string }>
  sequenceMismatch(base: string, xmlSequence: string, requestId: string): Promise<string>
}

/**
 * Compiled with the description's own `paths`: any documented operation called with its JSON body,
 * answered with its 200 JSON content. Written once for every description, so it compiles against one
 * with no operation too.
 */
const genericClient = (name: string): string => `import type { paths } from './${name}'

type PostOf<P> = P extends keyof paths ? (paths[P] extends { post: infer O } ? O : never) : never
export type JsonBody<P> = PostOf<P> extends { requestBody: { content: { 'application/json': infer B } } } ? B : never
export type JsonAnswer<P> =
  PostOf<P> extends { responses: { 200: { content: { 'application/json': infer A } } } } ? A : never

export async function call<P extends keyof paths & string>(base: string, path: P, body: JsonBody<P>): Promise<JsonAnswer<P>> {
  const res = await fetch(base + path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify(body)
  })
  if (res.status !== 200) throw new Error(path + ': ' + res.status + ' ' + (await res.text()))
  return (await res.json()) as JsonAnswer<P>
}
`

/** The README's calls of the example, each typed by the generated types of its one operation. */
const README_CLIENT = `import type { paths } from './example'

type Op = paths['/calculator/multiply']['post']
type Responses = Op['responses']
export type In = Op['requestBody']['content']['application/json']
export type Out = Responses[200]['content']['application/json']
export type Headers = NonNullable<Op['parameters']['header']>
export type Sequence = NonNullable<Headers['X-PLATFORM-Sequence-Name']>
export type RequestId = Responses[200]['headers']['X-PLATFORM-Request-ID']
export type Problem415 = Responses[415]['content']['application/problem+json']

// Named so that a description without XML bodies or XML problems does not compile.
export type XmlIn = Op['requestBody']['content']['application/xml']
export type XmlOut = Responses[200]['content']['application/xml']
export type ProblemXml = Responses[400]['content']['application/problem+xml']
export const sameShapes: [XmlIn, XmlOut] = [{ a: 2, b: 3 }, { result: 6 }]

type Status = Exclude<keyof Responses, 'default'>
type JsonOf<R> = R extends { content: { 'application/json': infer B } }
  ? B
  : R extends { content: { 'application/problem+json': infer P } }
    ? P
    : never
/** One member per documented status, so that testing the status narrows the body. */
export type Reply = { [S in Status]: { status: S; body: JsonOf<Responses[S]>; requestId: RequestId | null } }[Status]

function headersOf(headers: Headers, contentType: string): Record<string, string> {
  const out: Record<string, string> = { 'Content-Type': contentType }
  for (const [k, v] of Object.entries(headers)) if (typeof v === 'string') out[k] = v
  return out
}

export async function multiply(base: string, body: In): Promise<Out> {
  const res = await fetch(base + '/calculator/multiply', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body)
  })
  if (res.status !== 200) throw new Error('multiply: ' + res.status + ' ' + (await res.text()))
  return (await res.json()) as Out
}

/** The README reads the answer's \`result\`: a compile error unless the 200 schema names it, a number. */
export async function product(base: string, a: number, b: number): Promise<number> {
  const out = await multiply(base, { a, b })
  if (typeof out?.result !== 'number') throw new Error('no result: ' + JSON.stringify(out))
  return out.result
}

/** XML bodies are text here: the generated types describe their value, not the elements. */
export async function multiplyXml(
  base: string,
  xml: string,
  headers: Headers & { 'X-PLATFORM-Sequence-Name': Sequence }
): Promise<{ status: number; text: string }> {
  const res = await fetch(base + '/calculator/multiply', {
    method: 'POST',
    headers: headersOf(headers, 'application/xml'),
    body: xml
  })
  return { status: res.status, text: await res.text() }
}

export async function multiplyReply(base: string, body: In, headers: Headers): Promise<Reply> {
  const res = await fetch(base + '/calculator/multiply', {
    method: 'POST',
    headers: headersOf(headers, 'application/json'),
    body: JSON.stringify(body)
  })
  // The one cast: that the status and body are as the description says is what the test checks.
  return { status: res.status, body: await res.json(), requestId: res.headers.get('X-PLATFORM-Request-ID') } as Reply
}

/** A JSON body to the XML sequence: the 415 the description documents, its problem typed by it. */
export async function sequenceMismatch(base: string, xmlSequence: Sequence, requestId: string): Promise<Problem415['code']> {
  const r = await multiplyReply(base, { a: 2, b: 3 }, {
    'X-PLATFORM-Sequence-Name': xmlSequence,
    'X-PLATFORM-Request-ID': requestId
  })
  if (r.status !== 415) throw new Error('expected 415, got ' + r.status)
  const expected: Problem415['code'] = 'SEQUENCE_FORMAT_MISMATCH'
  if (r.body.code !== expected || r.requestId !== requestId || r.body.requestId !== requestId)
    throw new Error('415 answer: ' + JSON.stringify(r))
  return r.body.code
}
`

/** Calls the generated types must refuse: a text factor, a sequence the description does not offer. */
const WRONG_CLIENT = `import { multiply, multiplyXml } from './readme-client'

export const text = multiply('', { a: 'two', b: 3 })
export const sequence = multiplyXml('', '<in/>', { 'X-PLATFORM-Sequence-Name': 'alphaParamArrayJsonInOutSequence' })
`

/**
 * Standalone options, as a team compiling a generated client would have them: no project tsconfig,
 * Node's own types for fetch (TypeScript 6 includes no @types package unless named).
 */
const TSC_OPTIONS = [
  // The project's tsconfig.json is in the directory tsc runs in; a generated client has its own.
  '--ignoreConfig',
  '--strict',
  '--noUncheckedIndexedAccess',
  '--exactOptionalPropertyTypes',
  '--target',
  'es2022',
  '--lib',
  'es2022',
  '--module',
  'nodenext',
  '--moduleResolution',
  'nodenext',
  '--types',
  'node',
  '--typeRoots',
  join(BIN, '..', '@types'),
  '--pretty',
  'false'
]

function tsc(args: string[]): Promise<Ran> {
  return runFile(join(BIN, 'tsc'), [...TSC_OPTIONS, ...args])
}

/** tsc prints its diagnostics on stdout; both, so that a failure shows whatever it said. */
const said = (r: Ran): string => `${r.stdout}${r.stderr}`

describe('a TypeScript client generated from each description, against the running platform', () => {
  let p: RunningPlatform
  let edge: string
  let dir = ''
  let example = ''
  const descriptions = new Map<string, Description>()

  before(async () => {
    // A copy without the description an earlier run left beside it: the platform serves one it finds.
    example = exampleAt('1.0.0')
    rmSync(join(example, 'openapi.json'), { force: true })
    p = await startPlatform({}, [example, TESTKIT_DIR])
    edge = `http://127.0.0.1:${p.platform.edgePort}`
    dir = mkdtempSync(join(tmpdir(), 'openapi-client-'))
    const index = (await (await fetch(`${p.url}/`)).json()) as GatewayIndex
    for (const m of index.microservices) {
      if (m.description === null) continue
      const r = await fetch(edge + m.description)
      // The edge has none for a microservice without a documented method.
      if (r.status === 404) continue
      assert.equal(r.status, 200, m.name)
      const doc = (await r.json()) as Description
      descriptions.set(m.name, doc)
      writeFileSync(join(dir, `${m.name}.json`), JSON.stringify(doc))
    }
  })
  after(async () => {
    await p?.stop()
    for (const d of [dir, example === '' ? '' : dirname(example)])
      if (d !== '') rmSync(d, { recursive: true, force: true })
  })

  const base = (name: string): string => edge + descriptions.get(name)!.servers[0]!.url
  const load = <T>(file: string): T => createRequire(__filename)(join(dir, 'out', file)) as T

  test('openapi-typescript generates types from every description', async () => {
    assert.ok(descriptions.has('example'), [...descriptions.keys()].join(', '))
    for (const name of descriptions.keys()) {
      const r = await runFile(join(BIN, 'openapi-typescript'), [
        join(dir, `${name}.json`),
        '--output',
        join(dir, `${name}.d.ts`)
      ])
      assert.equal(r.code, 0, `${name}: ${said(r)}`)
    }
    const types = readFileSync(join(dir, 'example.d.ts'), 'utf8')
    for (const named of [
      '"application/json"',
      '"application/xml"',
      '"application/problem+json"',
      '"application/problem+xml"',
      '"X-PLATFORM-Request-ID"'
    ])
      assert.ok(types.includes(named), `example.d.ts names ${named}`)
  })

  test('the clients compile standalone with --strict against the generated types', async () => {
    const files = [...descriptions.keys()].map((name) => {
      const file = join(dir, `${name}-client.ts`)
      writeFileSync(file, genericClient(name))
      return file
    })
    writeFileSync(join(dir, 'readme-client.ts'), README_CLIENT)
    files.push(join(dir, 'readme-client.ts'))
    // A check that emits only when it passes: the JavaScript the next tests run is what was checked.
    const r = await tsc(['--noEmitOnError', '--outDir', join(dir, 'out'), '--rootDir', dir, ...files])
    assert.equal(r.code, 0, said(r))
  })

  test('a body or a sequence the description does not allow does not compile', async () => {
    const file = join(dir, 'wrong-client.ts')
    writeFileSync(file, WRONG_CLIENT)
    const r = await tsc(['--noEmit', file])
    assert.notEqual(r.code, 0, said(r))
    const errors = said(r)
      .split('\n')
      .filter((l) => l.includes('error TS'))
    assert.equal(errors.length, 2, said(r))
    assert.match(
      errors[0]!,
      /wrong-client\.ts\(3,\d+\): error TS2322: Type 'string' is not assignable to type 'number'/
    )
    assert.match(
      errors[1]!,
      /wrong-client\.ts\(4,\d+\): error TS\d+: Type '"alphaParamArrayJsonInOutSequence"' is not assignable to type '"betaParamArrayJsonInOutSequence" \| "alphaParamArrayXmlInOutSequence"'/
    )
  })

  test("the README's ROA JSON call through the edge: {a:2,b:3} is {result:6}", async () => {
    const client = load<ReadmeClient>('readme-client.js')
    assert.deepEqual(await client.multiply(base('example'), { a: 2, b: 3 }), { result: 6 })
    assert.equal(await client.product(base('example'), 2, 3), 6)
  })

  test("the README's ROA XML call, with the sequence the description offers for XML", async () => {
    const client = load<ReadmeClient>('readme-client.js')
    const sequences = descriptions
      .get('example')!
      .paths['/calculator/multiply']!.post.parameters?.find((h) => h.name === 'X-PLATFORM-Sequence-Name')?.schema.enum
    const xml = sequences?.filter((s) => /Xml/.test(s)) ?? []
    assert.equal(xml.length, 1, `the sequences offered: ${String(sequences)}`)
    const r = await client.multiplyXml(base('example'), '<in><a>2</a><b>3</b></in>', {
      'X-PLATFORM-Sequence-Name': xml[0]!
    })
    assert.equal(r.status, 200, r.text)
    assert.match(r.text, /<result>6<\/result>/)
    // A JSON body to that sequence: the typed 415 problem, the request ID echoed on the answer and in it.
    assert.equal(await client.sequenceMismatch(base('example'), xml[0]!, 'client-test-1'), 'SEQUENCE_FORMAT_MISMATCH')
  })

  test('every documented operation of every description, called with its example, answers its example', async () => {
    for (const [name, doc] of descriptions) {
      const client = load<GenericClient>(`${name}-client.js`)
      for (const [path, item] of Object.entries(doc.paths)) {
        const answer = item.post.responses[200]?.content?.['application/json']
        assert.ok(answer !== undefined, `${name} ${path}: a 200 JSON answer`)
        assert.deepEqual(
          await client.call(base(name), path, item.post.requestBody.content['application/json'].example),
          answer.example,
          `${name} ${path}`
        )
      }
    }
  })
})
