import { readFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'

// The e2e cases: one request each, sent by wrk to the gateway, to the ceiling and (as frames) to the floor.

export interface BenchCase {
  name: string
  title: string
  path: string
  headers: Record<string, string>
  body: Buffer
  /** The answer both the gateway and the ceiling must give, checked before timing (null: any 200). */
  expected: string | null
  /** For the floor: the Invoke frame's fields (null: no floor run). */
  invoke: { service: string; method: string; sequence: string; rmc: boolean } | null
  /**
   * A user's own endpoint: the ceiling cannot answer it, so the ceiling runs the standard ROA request
   * as the machine's yardstick.
   */
  custom?: boolean
  /** Fixed concurrency (the latency case runs one connection). */
  connections?: number
}

const JSON_ROA = { 'Content-Type': 'application/json' }
const JSON_RMC = { 'Content-Type': 'application/json', 'X-PLATFORM-API-ID': 'RMC' }

function bigList(count: number): { body: Buffer; expected: string } {
  // [[{"a":..,"b":..} × count], 7]: 50,000 items are about 1 MB, 10,000 about 190 KB.
  const items: string[] = []
  let sum = 0n
  for (let k = 0; k < count; k++) {
    const a = k % 1000
    const b = ((k * 7) % 1000) + 1000
    items.push(`{"a":${a},"b":${b}}`)
    sum += BigInt(a * b * 7)
  }
  return { body: Buffer.from(`[[${items.join(',')}],7]`), expected: sum.toString() }
}

export function allCases(): BenchCase[] {
  const big = bigList(50000)
  const mid = bigList(10000)
  return [
    {
      name: 'roa-json',
      title: 'ROA beta JSON multiply',
      path: '/example/calculator/multiply',
      headers: JSON_ROA,
      body: Buffer.from('{"a":2,"b":3}'),
      expected: '{"result":6}',
      invoke: { service: 'calculator', method: 'multiply', sequence: 'betaParamArrayJsonInOutSequence', rmc: false }
    },
    {
      name: 'rmc-json',
      title: 'RMC beta JSON multiplyInts',
      path: '/example/calculator/multiplyInts',
      headers: JSON_RMC,
      body: Buffer.from('[2,3]'),
      expected: '6',
      invoke: { service: 'calculator', method: 'multiplyInts', sequence: 'betaParamArrayJsonInOutSequence', rmc: true }
    },
    {
      name: 'rmc-alphaxml',
      title: 'RMC alpha XML multiplyInts',
      path: '/example/calculator/multiplyInts',
      headers: {
        'Content-Type': 'application/xml',
        'X-PLATFORM-API-ID': 'RMC',
        'X-PLATFORM-Sequence-Name': 'alphaParamArrayXmlInOutSequence'
      },
      body: Buffer.from('<paramArray><int>2</int><int>3</int></paramArray>'),
      expected: '<int>6</int>',
      invoke: { service: 'calculator', method: 'multiplyInts', sequence: 'alphaParamArrayXmlInOutSequence', rmc: true }
    },
    {
      name: 'rmc-json-200kb',
      title: 'RMC beta JSON sumProducts, ~200 KB argument',
      path: '/example/calculator/sumProducts',
      headers: JSON_RMC,
      body: mid.body,
      expected: mid.expected,
      invoke: { service: 'calculator', method: 'sumProducts', sequence: 'betaParamArrayJsonInOutSequence', rmc: true }
    },
    {
      name: 'rmc-json-1mb',
      title: 'RMC beta JSON sumProducts, ~1 MB argument',
      path: '/example/calculator/sumProducts',
      headers: JSON_RMC,
      body: big.body,
      expected: big.expected,
      invoke: { service: 'calculator', method: 'sumProducts', sequence: 'betaParamArrayJsonInOutSequence', rmc: true }
    },
    {
      name: 'c1-latency',
      title: 'ROA beta JSON multiply, one connection',
      path: '/example/calculator/multiply',
      headers: JSON_ROA,
      body: Buffer.from('{"a":2,"b":3}'),
      expected: '{"result":6}',
      invoke: { service: 'calculator', method: 'multiply', sequence: 'betaParamArrayJsonInOutSequence', rmc: false },
      connections: 1
    }
  ]
}

/**
 * Cases of your own, for your own microservices and endpoints: a JSON file holding a list of
 * { "name", "path", "headers", "body" (text) or "bodyFile" (path), "expected" (optional),
 *   "connections" (optional) }.
 */
/** The cases a run was asked for: the standard ones by name, then those of a case file. */
export function askedCases(names: string[], caseFile: string | null): BenchCase[] {
  return [...allCases().filter((c) => names.includes(c.name)), ...(caseFile !== null ? loadCaseFile(caseFile) : [])]
}

export function loadCaseFile(file: string): BenchCase[] {
  const raw = JSON.parse(readFileSync(file, 'utf8')) as Array<Record<string, unknown>>
  if (!Array.isArray(raw)) throw new Error(`${file}: a list of cases expected`)
  return raw.map((c, k) => {
    const where = `${file}: case ${k}`
    if (typeof c.name !== 'string' || typeof c.path !== 'string' || !c.path.startsWith('/'))
      throw new Error(`${where}: "name" and "path" (starting with /) are required`)
    const body =
      typeof c.bodyFile === 'string'
        ? readFileSync(resolve(dirname(file), c.bodyFile))
        : Buffer.from(typeof c.body === 'string' ? c.body : '')
    return {
      name: c.name,
      title: typeof c.title === 'string' ? c.title : c.name,
      path: c.path,
      headers: (c.headers ?? { 'Content-Type': 'application/json' }) as Record<string, string>,
      body,
      expected: typeof c.expected === 'string' ? c.expected : null,
      invoke: null,
      connections: typeof c.connections === 'number' ? c.connections : undefined,
      custom: true
    }
  })
}
