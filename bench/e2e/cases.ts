// The e2e cases: one request each, sent by wrk to the gateway, to the ceiling and (as frames) to the floor.

export interface BenchCase {
  name: string
  title: string
  path: string
  headers: Record<string, string>
  body: Buffer
  /** The answer both the gateway and the ceiling must give, checked before timing. */
  expected: string
  /** For the floor: the Invoke frame's fields. */
  invoke: { service: string, method: string, sequence: string, rmc: boolean }
  /** Fixed concurrency (the latency case runs one connection). */
  connections?: number
}

const JSON_ROA = { 'Content-Type': 'application/json' }
const JSON_RMC = { 'Content-Type': 'application/json', 'X-PLATFORM-API-ID': 'RMC' }

function bigList (): { body: Buffer, expected: string } {
  // [[{"a":..,"b":..} × 50,000], 7]: about 1 MB.
  const items: string[] = []
  let sum = 0n
  for (let k = 0; k < 50000; k++) {
    const a = k % 1000
    const b = (k * 7) % 1000 + 1000
    items.push(`{"a":${a},"b":${b}}`)
    sum += BigInt(a * b * 7)
  }
  return { body: Buffer.from(`[[${items.join(',')}],7]`), expected: sum.toString() }
}

export function allCases (): BenchCase[] {
  const big = bigList()
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
      headers: { 'Content-Type': 'application/xml', 'X-PLATFORM-API-ID': 'RMC', 'X-PLATFORM-Sequence-Name': 'alphaParamArrayXmlInOutSequence' },
      body: Buffer.from('<paramArray><int>2</int><int>3</int></paramArray>'),
      expected: '<int>6</int>',
      invoke: { service: 'calculator', method: 'multiplyInts', sequence: 'alphaParamArrayXmlInOutSequence', rmc: true }
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
