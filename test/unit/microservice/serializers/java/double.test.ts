// Double.toString as Java 17 prints it, where that is not the shortest form. The expected texts were
// asked of Debian's OpenJDK 17.0.15 through the oracle (test/oracle/Oracle.java) on 2026-11-22; the
// differential tests keep asking it for random doubles.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { javaDouble } from '../../../../../src/microservice/serializers/java/text'
import { javaDoubleToString } from '../../../../../src/microservice/serializers/java/double'

const JAVA_17: Array<[number, string]> = [
  [2 ** -44, '5.6843418860808015E-14'],
  [2 ** -10, '9.765625E-4'],
  [0.5, '0.5'],
  [138545688736438432, '1.38545688736438432E17'],
  [-4.94e-323, '-4.9E-323'],
  [43869093246497276000, '4.3869093246497276E19'],
  [3.0457938440128153e25, '3.0457938440128153E25'],
  [18014398509481986, '1.8014398509481984E16'],
  [2 ** 62, '4.6116860184273879E18'],
  [1e23, '9.999999999999999E22'],
  [Number.MIN_VALUE, '4.9E-324'],
  [Number.MAX_VALUE, '1.7976931348623157E308'],
  [2.2250738585072014e-308, '2.2250738585072014E-308'],
  [1234567.125, '1234567.125'],
  [0.001, '0.001'],
  [1e-7, '1.0E-7'],
  [12345678.9, '1.23456789E7']
]

test("Java 17's Double.toString, its non-shortest forms included", () => {
  for (const [x, java] of JAVA_17) {
    assert.equal(javaDouble(x), java, `javaDouble(${x})`)
    assert.equal(javaDoubleToString(x), java, `javaDoubleToString(${x})`)
  }
})

test('the fast path (shortest form) and the full algorithm agree wherever the fast path is taken', () => {
  const f64 = new Float64Array(1)
  const u32 = new Uint32Array(f64.buffer)
  let seed = 20261122
  const next = (): number => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0)
  for (let i = 0; i < 20000; i++) {
    u32[0] = next()
    u32[1] = next()
    const x = f64[0]!
    if (Number.isFinite(x)) assert.equal(javaDouble(x), javaDoubleToString(x), `${x}`)
  }
})
