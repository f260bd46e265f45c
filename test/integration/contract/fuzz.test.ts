// A bounded fuzz run over HTTP (fast-check): bodies built from the wire shapes of every sequence and
// mutated, in ROA and RMC, to methods of many parameter types; raw requests with malformed heads too.
// Nothing may answer 5xx, nothing may hang (every request has a deadline), and the microservice keeps
// its pid. FUZZ_RUNS sets the number of requests (default 300, which CI runs).
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { connect } from 'node:net'
import fc from 'fast-check'
import { startPlatform, post, TYPEKIT_DIR, EXAMPLE_DIR, type RunningPlatform } from '../../helpers/platform'

const RUNS = Number(process.env.FUZZ_RUNS ?? '300')
const SEQUENCES = [
  ['application/xml', 'alphaParamArrayXmlInOutSequence'],
  ['application/json', 'alphaParamArrayJsonInOutSequence'],
  ['application/xml', 'betaParamArrayXmlInOutSequence'],
  ['application/json', 'betaParamArrayJsonInOutSequence']
] as const
const TARGETS = [
  '/typekit/types/input',
  '/typekit/types/holder',
  '/typekit/types/ints',
  '/typekit/types/long',
  '/typekit/types/double',
  '/typekit/types/text',
  '/typekit/types/anything',
  '/example/calculator/multiplyInts',
  '/example/calculator/multiply'
]

/** Fragments of every sequence's shapes, and of what breaks them. */
const FRAGMENTS = [
  '{',
  '}',
  '[',
  ']',
  ',',
  ':',
  '"',
  '"a"',
  '"b"',
  '"in"',
  '"int"',
  '"out"',
  '2',
  '-0',
  '07e4',
  '0x10',
  '#ff',
  '1e400',
  '99999999999999999999',
  'null',
  'true',
  '"\\u0000"',
  '"\\ud800"',
  '<in>',
  '</in>',
  '<a>',
  '</a>',
  '<b>',
  '</b>',
  '<int>',
  '</int>',
  '<paramArray>',
  '</paramArray>',
  '<In>',
  '</In>',
  '<holder>',
  '</holder>',
  '<value class="int">',
  '<value class="java.lang.Runtime">',
  '</value>',
  '<items>',
  '</items>',
  '<list>',
  '</list>',
  '&#x1;',
  '&amp;',
  '&bogus;',
  '<!DOCTYPE x>',
  '<![CDATA[',
  ']]>',
  '<?xml version="1.0"?>',
  ' ',
  '\n',
  '\u2028',
  '\u0663',
  '\uff17',
  'reference="../in"',
  '__proto__',
  '"constructor"'
]

function deadline<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([
    p,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms))
  ])
}

describe('fuzzing every sequence over HTTP', () => {
  let p: RunningPlatform
  let pid = ''
  const rmc = { 'Content-Type': 'application/json', 'X-PLATFORM-API-ID': 'RMC' }
  before(async () => {
    p = await startPlatform({}, [EXAMPLE_DIR, TYPEKIT_DIR])
    pid = (await post(p.url, '/typekit/types/pid', '[]', rmc)).text
  })
  after(() => p.stop())

  test(`${RUNS} generated bodies: no 5xx, no hang, the microservice keeps its pid`, async () => {
    const statuses = new Map<number, number>()
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...SEQUENCES),
        fc.constantFrom(...TARGETS),
        fc.constantFrom('ROA', 'RMC'),
        fc.array(fc.constantFrom(...FRAGMENTS), { maxLength: 24 }),
        async ([type, sequence], path, mode, parts) => {
          const body = parts.join('')
          const r = await deadline(
            post(p.url, path, body, {
              'Content-Type': type,
              'X-PLATFORM-Sequence-Name': sequence,
              'X-PLATFORM-API-ID': mode
            }),
            10000,
            body
          )
          statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1)
          assert.ok(r.status < 500, `${r.status} for ${mode} ${sequence} ${path} ${JSON.stringify(body)}: ${r.text}`)
        }
      ),
      { numRuns: RUNS }
    )
    assert.equal((await post(p.url, '/typekit/types/pid', '[]', rmc)).text, pid)
    assert.ok((statuses.get(400) ?? 0) > 0, 'the generator reaches the 400 paths')
  })

  test('malformed heads sent straight to the gateway leave it answering', async () => {
    const port = Number(new URL(p.url).port)
    const heads = fc.array(
      fc.constantFrom(
        'POST',
        ' ',
        '/typekit/types/text',
        'HTTP/1.1',
        'HTTP/1.0',
        '\r\n',
        '\n',
        '\r',
        ':',
        'Content-Length: 5',
        'Content-Length: -1',
        'Transfer-Encoding: chunked',
        '\0',
        'X: y',
        '"abc"'
      ),
      { maxLength: 20 }
    )
    await fc.assert(
      fc.asyncProperty(heads, async (parts) => {
        await new Promise<void>((resolve) => {
          const s = connect(port, '127.0.0.1')
          s.on('error', () => resolve())
          s.on('close', () => resolve())
          s.write(parts.join(''))
          setTimeout(() => s.destroy(), 50)
        })
      }),
      { numRuns: Math.max(20, Math.floor(RUNS / 5)) }
    )
    const r = await deadline(
      post(p.url, '/example/calculator/multiply', '{"a":2,"b":3}'),
      5000,
      'a call after the malformed heads'
    )
    assert.equal(r.text, '{"result":6}')
    assert.equal((await post(p.url, '/typekit/types/pid', '[]', rmc)).text, pid)
  })
})
