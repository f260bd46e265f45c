// time limit: 300 s: a platform, Prism's proxy and a few hundred calls through both, on a shared machine
// The example's description, as the edge serves it, held to the gateway's answers by Prism's proxy:
// a hand-written corpus of valid and invalid calls in each offered sequence and format (every error the
// operation documents that a test can provoke) and a corpus fast-check makes from the request schemas.
// A response violation fails; XML answers, which Prism does not read, are checked here against the
// documented media type and root element.
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import fc from 'fast-check'
import {
  startPlatform,
  post,
  exampleAt,
  JSON_CT,
  TESTKIT_DIR,
  until,
  type RunningPlatform
} from '../../helpers/platform'
import {
  startPrismProxy,
  rewritingHop,
  violationsOf,
  xmlAnswerErrors,
  arbitraryOf,
  at,
  REWRITE,
  type Prism,
  type Violation
} from '../../helpers/processes/prism'
import { renderXml, pointerKey } from '../../helpers/inputs/openapi'

/** Small enough that a body of a few hundred bytes is refused (413) before it is read. */
const MAX_BODY_BYTES = 256
const XML_SEQ = 'alphaParamArrayXmlInOutSequence'
const XML = { 'Content-Type': 'application/xml', 'X-PLATFORM-Sequence-Name': XML_SEQ }

interface Call {
  readonly name: string
  readonly path: string
  readonly method?: string
  readonly body?: string
  readonly headers: Record<string, string>
  /** The status the gateway answers: the corpus is meant to reach each one. */
  readonly status: number
  readonly code?: string
}

type Doc = { paths: Record<string, Record<string, { [k: string]: unknown }>> }

describe('the description against the running gateway, through Prism', () => {
  let p: RunningPlatform
  let prism: Prism
  let hop: { close(): void }
  let doc: Doc
  const seen = new Set<string>()

  before(async () => {
    // A copy without the description an earlier run left beside it: the platform serves one it finds.
    const example = exampleAt('1.0.0')
    rmSync(join(example, 'openapi.json'), { force: true })
    p = await startPlatform({ ENTRY_POINTS: { WEB_SERVICE_FACADE_HTTP: { maxBodyBytes: MAX_BODY_BYTES } } }, [
      example,
      TESTKIT_DIR
    ])
    const edge = `http://127.0.0.1:${p.platform.edgePort}`
    const r = await fetch(`${edge}/_swagger/example/openapi.json`)
    assert.equal(r.status, 200)
    doc = (await r.json()) as Doc
    const file = join(mkdtempSync(join(tmpdir(), 'openapi-prism-')), 'example.json')
    writeFileSync(file, JSON.stringify(doc))
    const h = await rewritingHop(edge, 'example')
    hop = h
    prism = await startPrismProxy(file, h.url)
  })
  after(async () => {
    await prism?.stop()
    hop?.close()
    await p?.stop()
  })

  /** The call through Prism; the answer's response violations, XML ones found by xmlAnswerErrors. */
  async function check(c: Call): Promise<string[]> {
    let res: Response
    let text: string
    try {
      res = await fetch(prism.url + c.path, {
        method: c.method ?? 'POST',
        headers: c.headers,
        signal: AbortSignal.timeout(10_000),
        ...(c.body === undefined ? {} : { body: c.body })
      })
      text = await res.text()
    } catch (e) {
      return [`${c.name}: no answer: ${String(e)}`]
    }
    const type = res.headers.get('content-type') ?? ''
    const xml = /[/+]xml\b/.test(type)
    const problems: string[] = []
    if (res.status !== c.status) problems.push(`status ${res.status}, expected ${c.status}: ${text}`)
    if (c.code !== undefined && !text.includes(c.code)) problems.push(`not ${c.code}: ${text}`)
    const responseViolations = violationsOf(res.headers).filter(
      (v: Violation) =>
        v.location[0] === 'response' &&
        // Prism parses no XML: its "must be object" of an XML body is the one thing it cannot tell.
        !(xml && v.location[1] === 'body')
    )
    problems.push(...responseViolations.map((v) => `prism: ${v.location.join('.')}: ${v.message}`))
    if (xml) {
      const op = doc.paths[c.path]!.post!
      problems.push(...xmlAnswerErrors(doc, op, res.status, type, text))
    }
    seen.add(`${res.status}${c.code === undefined ? '' : ` ${c.code}`}`)
    return problems.map((m) => `${c.name}: ${m}`)
  }

  const M = '/calculator/multiply'
  const I = '/calculator/multiplyToInt'
  const big = JSON.stringify({ a: 1, b: 2, pad: 'x'.repeat(MAX_BODY_BYTES) })
  const hand: Call[] = [
    { name: 'JSON, default sequence', path: M, body: '{"a":2,"b":3}', headers: JSON_CT, status: 200 },
    {
      name: 'JSON, sequence named',
      path: M,
      body: '{"a":2,"b":null}',
      headers: {
        ...JSON_CT,
        'X-PLATFORM-Sequence-Name': 'betaParamArrayJsonInOutSequence',
        'X-PLATFORM-API-ID': 'ROA'
      },
      status: 200
    },
    { name: 'JSON to Integer', path: I, body: '{"a":6,"b":7}', headers: JSON_CT, status: 200 },
    { name: 'XML, alpha', path: M, body: '<in><a>2</a><b>3</b></in>', headers: XML, status: 200 },
    { name: 'XML to Integer', path: I, body: '<in><a>6</a><b>7</b></in>', headers: XML, status: 200 },
    {
      name: 'preflight',
      path: M,
      method: 'OPTIONS',
      headers: { Origin: 'http://page.test', 'Access-Control-Request-Method': 'POST' },
      status: 204
    },
    {
      name: '415 text/plain',
      path: M,
      body: 'x',
      headers: { 'Content-Type': 'text/plain' },
      status: 415,
      code: 'UNSUPPORTED_MEDIA_TYPE'
    },
    {
      name: '415 XML in a JSON sequence',
      path: M,
      body: '<in/>',
      headers: { 'Content-Type': 'application/xml' },
      status: 415,
      code: 'SEQUENCE_FORMAT_MISMATCH'
    },
    {
      name: '415 JSON in the XML sequence',
      path: M,
      body: '{}',
      headers: { ...JSON_CT, 'X-PLATFORM-Sequence-Name': XML_SEQ },
      status: 415,
      code: 'SEQUENCE_FORMAT_MISMATCH'
    },
    {
      name: '406 JSON asking XML',
      path: M,
      body: '{"a":1}',
      headers: { ...JSON_CT, Accept: 'application/xml' },
      status: 406,
      code: 'FORMAT_MISMATCH'
    },
    {
      name: '406 XML asking JSON',
      path: M,
      body: '<in/>',
      headers: { ...XML, Accept: 'application/json' },
      status: 406,
      code: 'FORMAT_MISMATCH'
    },
    // Malformed JSON is left out: Prism's proxy never forwards a request body it cannot parse as JSON.
    { name: '400 malformed XML', path: M, body: '<in><a>', headers: XML, status: 400, code: 'MALFORMED_BODY' },
    { name: '400 bad argument', path: M, body: '{"a":"two"}', headers: JSON_CT, status: 400, code: 'BAD_ARGUMENT' },
    {
      name: '400 bad argument XML',
      path: M,
      body: '<in><a>two</a></in>',
      headers: XML,
      status: 400,
      code: 'BAD_ARGUMENT'
    },
    { name: '400 unknown member', path: M, body: '{"a":1,"c":2}', headers: JSON_CT, status: 400, code: 'BAD_ARGUMENT' },
    {
      name: '400 sequence',
      path: M,
      body: '{}',
      headers: { ...JSON_CT, 'X-PLATFORM-Sequence-Name': 'nope' },
      status: 400,
      code: 'UNKNOWN_SEQUENCE'
    },
    {
      name: '400 sequence XML',
      path: M,
      body: '<in/>',
      headers: { ...XML, 'X-PLATFORM-Sequence-Name': 'nope' },
      status: 400,
      code: 'UNKNOWN_SEQUENCE'
    },
    {
      name: '400 API-ID',
      path: M,
      body: '{}',
      headers: { ...JSON_CT, 'X-PLATFORM-API-ID': 'roa' },
      status: 400,
      code: 'UNKNOWN_API_ID'
    },
    {
      name: '400 argument count',
      path: M,
      body: '[{"a":1},{"b":2}]',
      headers: { ...JSON_CT, 'X-PLATFORM-API-ID': 'RMC' },
      status: 400,
      code: 'ARGUMENT_COUNT'
    },
    { name: '413', path: M, body: big, headers: JSON_CT, status: 413, code: 'BODY_TOO_LARGE' },
    {
      name: '413 XML',
      path: M,
      body: `<in><a>1</a>${' '.repeat(MAX_BODY_BYTES)}</in>`,
      headers: XML,
      status: 413,
      code: 'BODY_TOO_LARGE'
    },
    {
      name: '404 microservice',
      path: M,
      body: '{}',
      headers: { ...JSON_CT, [REWRITE.microservice]: 'nosuch' },
      status: 404,
      code: 'UNKNOWN_MICROSERVICE'
    },
    {
      name: '404 microservice XML',
      path: M,
      body: '<in/>',
      headers: { ...XML, [REWRITE.microservice]: 'nosuch' },
      status: 404,
      code: 'UNKNOWN_MICROSERVICE'
    },
    {
      name: '404 service',
      path: M,
      body: '{}',
      headers: { ...JSON_CT, [REWRITE.microservice]: 'testkit' },
      status: 404,
      code: 'UNKNOWN_SERVICE'
    },
    {
      name: '404 method',
      path: M,
      body: '{}',
      headers: { ...JSON_CT, [REWRITE.path]: '/calculator/nosuch' },
      status: 404,
      code: 'UNKNOWN_METHOD'
    },
    {
      name: '405',
      path: M,
      body: '{}',
      headers: { ...JSON_CT, [REWRITE.method]: 'PUT' },
      status: 405,
      code: 'METHOD_NOT_ALLOWED'
    },
    {
      name: '405 XML',
      path: M,
      body: '<in/>',
      headers: { ...XML, [REWRITE.method]: 'PUT' },
      status: 405,
      code: 'METHOD_NOT_ALLOWED'
    },
    {
      // Through XML: Prism rewrites a JSON string body before it forwards it.
      name: "a method's own status",
      path: M,
      body: '<string>x</string>',
      headers: { ...XML, [REWRITE.microservice]: 'testkit', [REWRITE.path]: '/misc/conflict' },
      status: 409,
      code: 'METHOD_FAILED'
    }
  ]

  test('the hand-written corpus: no response violation, XML answers as described', async () => {
    const problems: string[] = []
    for (const c of hand) problems.push(...(await check(c)))
    assert.deepEqual(problems, [])
  })

  test('503 with Retry-After while a microservice is unavailable, in both formats', async () => {
    const off = await post(p.url, '/testkit/slow/pauseAvailability', '3000', JSON_CT)
    assert.equal(off.status, 200)
    const to = { [REWRITE.microservice]: 'testkit' }
    await until(
      async () =>
        (await post(p.url, '/testkit/misc/pair', '["a","b"]', { ...JSON_CT, 'X-PLATFORM-API-ID': 'RMC' })).status ===
        503,
      5000,
      'testkit unavailable'
    )
    const problems = [
      ...(await check({
        name: '503',
        path: M,
        body: '{}',
        headers: { ...JSON_CT, ...to },
        status: 503,
        code: 'MICROSERVICE_UNAVAILABLE'
      })),
      ...(await check({
        name: '503 XML',
        path: M,
        body: '<in/>',
        headers: { ...XML, ...to },
        status: 503,
        code: 'MICROSERVICE_UNAVAILABLE'
      }))
    ]
    assert.deepEqual(problems, [])
  })

  test('a corpus made from the request schemas: accepted in each format, answered as described', async () => {
    const problems: string[] = []
    for (const path of [M, I]) {
      const body = `#/paths/${pointerKey(path)}/post/requestBody/content`
      const json = arbitraryOf(doc, at(doc, `${body}/application~1json/schema`))
      const xmlSchema = `${body}/application~1xml/schema`
      const xmlValue = arbitraryOf(doc, at(doc, xmlSchema))
      for (const value of fc.sample(json, { numRuns: 25, seed: 42 }))
        problems.push(
          ...(await check({
            name: `${path} ${JSON.stringify(value)}`,
            path,
            body: JSON.stringify(value),
            headers: JSON_CT,
            status: 200
          }))
        )
      for (const value of fc.sample(xmlValue, { numRuns: 25, seed: 43 })) {
        const text = renderXml(doc, xmlSchema, value)
        problems.push(...(await check({ name: `${path} ${text}`, path, body: text, headers: XML, status: 200 })))
      }
    }
    assert.deepEqual(problems, [])
  })

  test('the corpora reached every status they aimed at', () => {
    for (const s of [
      '200',
      '204',
      '400 MALFORMED_BODY',
      '404 UNKNOWN_SERVICE',
      '405 METHOD_NOT_ALLOWED',
      '413 BODY_TOO_LARGE',
      '415 UNSUPPORTED_MEDIA_TYPE',
      '503 MICROSERVICE_UNAVAILABLE'
    ])
      assert.ok(seen.has(s), `${s} in ${[...seen].join(', ')}`)
  })
})
