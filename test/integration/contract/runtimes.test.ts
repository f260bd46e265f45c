// SPEC's cases against both runtimes from one table: the JavaScript example and testkit, and their
// Java counterparts (examples/java-example, test/fixtures/java-testkit) built as a team would build
// them (scripts/build-java-package.sh) and deployed by the platform. A row that differs between the
// runtimes says so, with the Java library's reason.
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import {
  startPlatform,
  post,
  problem,
  until,
  EXAMPLE_DIR,
  TESTKIT_DIR,
  JSON_CT,
  type RunningPlatform
} from '../../helpers/platform'
import { builtPackage } from '../../helpers/java/java-package'
import { join } from 'node:path'
import { connect } from 'node:net'
import { ROOT } from '../../helpers/root'

type RuntimeName = 'node' | 'java'

interface Runtime {
  name: RuntimeName
  /** The microservice names of the example and the testkit in this runtime. */
  example: string
  testkit: string
  dirs(): string[]
}

const RUNTIMES: Runtime[] = [
  { name: 'node', example: 'example', testkit: 'testkit', dirs: () => [EXAMPLE_DIR, TESTKIT_DIR] },
  {
    name: 'java',
    example: 'java-example',
    testkit: 'java-testkit',
    dirs: () => [
      builtPackage(join(ROOT, 'examples', 'java-example')),
      builtPackage(join(ROOT, 'test', 'fixtures', 'java-testkit'))
    ]
  }
]

/** What a row expects: a status and a body (exact or a pattern), or a problem with its code. */
type Expect = { status: number; text?: string; match?: RegExp } | { code: string; detail?: RegExp; status?: number }

interface Row {
  name: string
  /** `{example}` and `{testkit}` are replaced by the runtime's microservice names. */
  path: string
  body: string
  headers?: Record<string, string>
  expect: Expect
  /** Where a runtime answers otherwise, and why. */
  java?: Expect
}

const RMC = { 'X-PLATFORM-API-ID': 'RMC' }
const RMC_JSON = { ...JSON_CT, ...RMC }
const seq = (name: string, ct: string): Record<string, string> => ({
  'Content-Type': ct,
  'X-PLATFORM-Sequence-Name': name
})

/** How each sequence writes an Integer and an In, and what it answers for an Integer and an Out. */
const SEQUENCES = [
  {
    name: 'betaParamArrayJsonInOutSequence',
    ct: 'application/json',
    int: (n: number) => String(n),
    input: (a: number, b: number) => `{"a":${a},"b":${b}}`,
    outObject: (n: number) => `{"result":${n}}`,
    rmc: (args: string[]) => `[${args.join(',')}]`
  },
  {
    name: 'alphaParamArrayJsonInOutSequence',
    ct: 'application/json',
    int: (n: number) => `{"int":${n}}`,
    input: (a: number, b: number) => `{"in":{"a":${a},"b":${b}}}`,
    outObject: (n: number) => `{"out":{"result":${n}}}`,
    rmc: (args: string[]) => `[${args.join(',')}]`
  },
  {
    name: 'alphaParamArrayXmlInOutSequence',
    ct: 'application/xml',
    int: (n: number) => `<int>${n}</int>`,
    input: (a: number, b: number) => `<in>\n  <a>${a}</a>\n  <b>${b}</b>\n</in>`,
    outObject: (n: number) => `<out>\n  <result>${n}</result>\n</out>`,
    rmc: (args: string[]) => `<paramArray>${args.join('')}</paramArray>`
  },
  {
    name: 'betaParamArrayXmlInOutSequence',
    ct: 'application/xml',
    int: (n: number) => `<Integer>${n}</Integer>`,
    input: (a: number, b: number) => `<In><a>${a}</a><b>${b}</b></In>`,
    outObject: (n: number) => `<Out><result>${n}</result></Out>`,
    rmc: (args: string[]) => `<paramArray>${args.join('')}</paramArray>`
  }
]

/** SPEC's four operation kinds × the four sequences × the modes each kind allows. */
function matrixRows(): Row[] {
  const rows: Row[] = []
  let seed = 3
  for (const s of SEQUENCES) {
    const kinds = [
      {
        kind: 'A',
        method: 'multiplyInts',
        roa: false,
        args: (a: number, b: number) => [s.int(a), s.int(b)],
        out: s.int
      },
      { kind: 'B', method: 'multiply', roa: true, args: (a: number, b: number) => [s.input(a, b)], out: s.outObject },
      { kind: 'C', method: 'multiplyToInt', roa: true, args: (a: number, b: number) => [s.input(a, b)], out: s.int },
      {
        kind: 'D',
        method: 'multiplyIntsToOut',
        roa: false,
        args: (a: number, b: number) => [s.int(a), s.int(b)],
        out: s.outObject
      }
    ]
    for (const k of kinds)
      for (const mode of ['ROA', 'RMC'] as const) {
        if (mode === 'ROA' && !k.roa) continue
        const a = seed++
        const b = seed++ * 2
        const args = k.args(a, b)
        rows.push({
          name: `${k.kind} ${k.method} ${mode} ${s.name}`,
          path: `/{example}/calculator/${k.method}`,
          body: mode === 'ROA' ? args[0]! : s.rmc(args),
          headers: { ...seq(s.name, s.ct), ...(mode === 'RMC' ? RMC : {}) },
          expect: { status: 200, text: k.out(a * b) }
        })
      }
  }
  return rows
}

const list = Array.from({ length: 1000 }, (_, k) => ({ a: k, b: 2147483647 - k }))
const STRING = 'a "quoted" <tag> & é 日本 😀'

const ROWS: Row[] = [
  ...matrixRows(),
  {
    name: 'ROA is the default mode and betaParamArrayJsonInOutSequence the default sequence',
    path: '/{example}/calculator/multiply',
    body: '{"a":2,"b":3}',
    expect: { status: 200, text: '{"result":6}' }
  },
  {
    name: 'an int product past 32 bits wraps as Java int arithmetic does',
    path: '/{example}/calculator/multiply',
    body: '{"a":65536,"b":65537}',
    expect: { status: 200, text: '{"result":65536}' }
  },
  {
    name: 'a list argument and a long answer (sumProducts)',
    path: '/{example}/calculator/sumProducts',
    body: JSON.stringify([list, 3]),
    headers: RMC_JSON,
    expect: { status: 200, text: list.reduce((s, x) => s + BigInt(x.a) * BigInt(x.b) * 3n, 0n).toString() }
  },
  {
    name: 'the largest long as beta JSON',
    path: '/{example}/diagnostics/echoLong',
    body: '9223372036854775807',
    expect: { status: 200, text: '9223372036854775807' },
    // Jackson 2.14 refuses a 19-digit long at the top of its range (departure jackson-19-digit-long).
    java: { code: 'BAD_ARGUMENT', detail: /out of range of long/ }
  },
  {
    name: 'the smallest long as alpha XML',
    path: '/{example}/diagnostics/echoLong',
    body: '<long>-9223372036854775808</long>',
    headers: seq('alphaParamArrayXmlInOutSequence', 'application/xml'),
    expect: { status: 200, text: '<long>-9223372036854775808</long>' }
  },
  {
    name: 'a string through beta JSON',
    path: '/{example}/diagnostics/echo',
    body: JSON.stringify(STRING),
    expect: { status: 200, text: '"a \\"quoted\\" <tag> & é 日本 😀"' }
  },
  {
    name: 'a string through alpha JSON',
    path: '/{example}/diagnostics/echo',
    body: `{"string":${JSON.stringify(STRING)}}`,
    headers: seq('alphaParamArrayJsonInOutSequence', 'application/json'),
    expect: { status: 200, text: '{"string":"a \\"quoted\\" <tag> & é 日本 😀"}' }
  },
  {
    name: 'a string through alpha XML',
    path: '/{example}/diagnostics/echo',
    body: '<string>a "quoted" &lt;tag&gt; &amp; é 日本 😀</string>',
    headers: seq('alphaParamArrayXmlInOutSequence', 'application/xml'),
    expect: { status: 200, text: '<string>a &quot;quoted&quot; &lt;tag&gt; &amp; é 日本 😀</string>' }
  },
  {
    name: 'a string through beta XML',
    path: '/{example}/diagnostics/echo',
    body: '<String>a "quoted" &lt;tag> &amp; é 日本 😀</String>',
    headers: seq('betaParamArrayXmlInOutSequence', 'application/xml'),
    expect: { status: 200, text: '<String>a "quoted" &lt;tag> &amp; é 日本 😀</String>' }
  },
  {
    name: 'the call context reaches the method (no parameters: <paramArray/>)',
    path: '/{example}/diagnostics/context',
    body: '<paramArray/>',
    headers: { ...seq('alphaParamArrayXmlInOutSequence', 'application/xml'), ...RMC, 'X-PLATFORM-Request-ID': 'r-1' },
    expect: {
      status: 200,
      text: '<context>\n  <privilegeNames/>\n  <requestId>r-1</requestId>\n  <ip>127.0.0.1</ip>\n  <privileged>false</privileged>\n</context>'
    }
  },
  {
    name: 'every X-PLATFORM header in the call context, and the resolver grants a listed name',
    path: '/{example}/diagnostics/context',
    body: '[]',
    headers: {
      ...RMC_JSON,
      'X-PLATFORM-Locale': 'de-CH',
      'X-PLATFORM-Privilege-Names': 'guest;admin',
      'X-PLATFORM-Request-ID': 'r-2',
      'X-PLATFORM-Session-ID': 's-2',
      'X-PLATFORM-User': 'ann',
      'X-PLATFORM-Client-Application-Name': 'shop',
      'X-PLATFORM-IP': '10.0.0.7'
    },
    expect: {
      status: 200,
      text: '{"locale":"de-CH","privilegeNames":["guest","admin"],"requestId":"r-2","sessionId":"s-2","user":"ann","clientApplicationName":"shop","ip":"10.0.0.7","privileged":true}'
    }
  },
  {
    name: 'a service that is not remotely enabled is not found',
    path: '/{example}/internal/secret',
    body: '"x"',
    expect: { code: 'UNKNOWN_SERVICE' }
  },
  { name: 'UNKNOWN_METHOD', path: '/{example}/calculator/divide', body: '{}', expect: { code: 'UNKNOWN_METHOD' } },
  {
    name: 'ROA_NEEDS_ONE_PARAMETER',
    path: '/{example}/calculator/multiplyInts',
    body: '[2,3]',
    expect: { code: 'ROA_NEEDS_ONE_PARAMETER' }
  },
  {
    name: 'ARGUMENT_COUNT',
    path: '/{example}/calculator/multiplyInts',
    body: '[2]',
    headers: RMC_JSON,
    expect: { code: 'ARGUMENT_COUNT', detail: /takes 2 arguments, the body has 1/ }
  },
  {
    name: 'BAD_ARGUMENT names the argument and its type',
    path: '/{example}/calculator/multiply',
    body: '{"a":"x","b":7}',
    expect: { code: 'BAD_ARGUMENT', detail: /^argument 0 of multiply \(com\.example\.In\)/ }
  },
  {
    name: 'a void method answers 204',
    path: '/{testkit}/misc/nothing',
    body: '"x"',
    expect: { status: 204, text: '' }
  },
  {
    name: 'PRIVILEGE_DENIED without a granted name',
    path: '/{testkit}/misc/admin',
    body: '"x"',
    headers: { ...JSON_CT, 'X-PLATFORM-Privilege-Names': 'guest;nobody' },
    expect: { code: 'PRIVILEGE_DENIED', detail: /needs a privileged call/ }
  },
  {
    name: 'a privileged call passes',
    path: '/{testkit}/misc/admin',
    body: '"x"',
    headers: { ...JSON_CT, 'X-PLATFORM-Privilege-Names': 'guest; root' },
    expect: { status: 200, text: '"admin x"' }
  },
  {
    name: 'METHOD_FAILED for a method that throws',
    path: '/{testkit}/misc/fail',
    body: '"boom"',
    expect: { code: 'METHOD_FAILED', detail: /^(Error|IllegalStateException): failed on boom$/ }
  },
  {
    name: "METHOD_FAILED with the status the service's error carries",
    path: '/{testkit}/misc/conflict',
    body: '"x"',
    expect: { code: 'METHOD_FAILED', status: 409, detail: /^already exists$/ }
  },
  {
    name: 'two string arguments',
    path: '/{testkit}/misc/pair',
    body: '["a","b"]',
    headers: RMC_JSON,
    expect: { status: 200, text: '"ab"' }
  },
  {
    name: 'the subject of a client certificate a trusted TLS terminator verified reaches the method',
    path: '/{testkit}/misc/certificate',
    body: '[]',
    headers: { ...RMC_JSON, 'X-PLATFORM-Certificate-Subject': 'CN=billing,O=Acme' },
    expect: { status: 200, text: '"CN=billing,O=Acme"' }
  },
  {
    name: 'no client certificate: an empty subject',
    path: '/{testkit}/misc/certificate',
    body: '[]',
    headers: RMC_JSON,
    expect: { status: 200, text: '""' }
  }
]

function check(r: { status: number; text: string; headers: Headers }, e: Expect, what: string): void {
  if ('code' in e) {
    const p = problem({ status: r.status, text: r.text, headers: r.headers })
    assert.equal(p.code, e.code, `${what}: ${r.text}`)
    if (e.status !== undefined) assert.equal(r.status, e.status, what)
    if (e.detail !== undefined) assert.match(p.detail, e.detail, what)
    assert.ok(!r.text.includes('    at '), 'no stack trace leaves the process')
    return
  }
  assert.equal(r.status, e.status, `${what}: ${r.text}`)
  if (e.text !== undefined) assert.equal(r.text, e.text, what)
  if (e.match !== undefined) assert.match(r.text, e.match, what)
}

for (const rt of RUNTIMES) {
  describe(`SPEC's cases on the ${rt.name} runtime`, () => {
    let p: RunningPlatform
    before(async () => {
      p = await startPlatform({ ENTRY_POINTS: { WEB_SERVICE_FACADE_HTTP: { executingTimeoutMs: 1500 } } }, rt.dirs())
    })
    after(() => p.stop())

    const at = (path: string): string => path.replace('{example}', rt.example).replace('{testkit}', rt.testkit)

    for (const row of ROWS) {
      test(row.name, async () => {
        const r = await post(p.url, at(row.path), row.body, row.headers ?? JSON_CT)
        check(r, (rt.name === 'java' ? row.java : undefined) ?? row.expect, row.name)
      })
    }

    test("a microservice's own serializer bean replaces the default of its sequence, and only that one", async () => {
      const alpha = seq('alphaParamArrayJsonInOutSequence', 'application/json')
      // The Java testkit's bean is an XStream that aliases String as "shouted"; the JavaScript one reads plain JSON.
      const body = rt.name === 'java' ? '{"shouted":"hello"}' : '"hello"'
      const r = await post(p.url, at('/{testkit}/custom/shout'), body, alpha)
      assert.deepEqual([r.status, r.text], [200, '{"shouted":"HELLO"}'])
      const d = await post(p.url, at('/{testkit}/custom/shout'), '"hello"')
      assert.equal(d.text, '"hello"')
    })

    test('EXECUTION_TIMEOUT: 504, and the method is stopped', async () => {
      const r = await post(p.url, at('/{testkit}/slow/sleep'), '5000')
      check(r, { code: 'EXECUTION_TIMEOUT', detail: /1500 ms/ }, 'sleep past the timeout')
      await until(
        async () => (await post(p.url, at('/{testkit}/slow/active'), '[]', RMC_JSON)).text === '0',
        5000,
        'the sleeping call to stop'
      )
    })

    test('a client that goes away mid-call: the method is stopped', async () => {
      const count = async (what: string): Promise<number> =>
        Number((await post(p.url, at(`/{testkit}/slow/${what}`), '[]', RMC_JSON)).text)
      const before = await count('cancelled')
      const socket = connect(Number(new URL(p.url).port), '127.0.0.1')
      await new Promise((r) => socket.once('connect', r))
      const body = '20000'
      socket.write(
        `POST ${at('/{testkit}/slow/sleep')} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`
      )
      await until(async () => (await count('active')) === 1, 5000, 'the call sleeping')
      socket.destroy()
      await until(async () => (await count('cancelled')) === before + 1, 5000, 'the sleep cancelled')
      assert.equal(await count('active'), 0)
    })

    test('MICROSERVICE_UNAVAILABLE while its availability flag is false, 200 again after', async () => {
      const off = await post(p.url, at('/{testkit}/slow/pauseAvailability'), '1500')
      assert.equal(off.status, 200, off.text)
      const pair = (): Promise<{ status: number; text: string; headers: Headers }> =>
        post(p.url, at('/{testkit}/misc/pair'), '["a","b"]', RMC_JSON)
      await until(async () => (await pair()).status === 503, 5000, 'unavailable')
      check(await pair(), { code: 'MICROSERVICE_UNAVAILABLE', detail: /reports itself unavailable/ }, 'flag off')
      assert.equal((await post(p.url, at('/{example}/calculator/multiply'), '{"a":1,"b":1}')).status, 200)
      await until(async () => (await pair()).status === 200, 5000, 'available again')
    })
  })
}
