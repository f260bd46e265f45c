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

// The expected texts below were asked of the same OpenJDK 17.0.15 (Double.toString on the exact bits).

test('NaN, the infinities and the signed zeros are printed by name, not by the digit loop', () => {
  const special: Array<[number, string]> = [
    [NaN, 'NaN'],
    [Infinity, 'Infinity'],
    [-Infinity, '-Infinity'],
    [0, '0.0'],
    [-0, '-0.0']
  ]
  for (const [x, java] of special) assert.equal(javaDoubleToString(x), java, `javaDoubleToString(${x})`)
})

test('an integral value below 2^54 prints its exact digits: "n.0" below 10^7, E-form from there', () => {
  // The "easy case": the digits of the integer itself, trailing zeros dropped and counted in the exponent.
  const integral: Array<[number, string]> = [
    [1, '1.0'],
    [2, '2.0'],
    [3, '3.0'],
    [-5, '-5.0'],
    [100, '100.0'],
    [3481600, '3481600.0'],
    [7056256, '7056256.0'],
    [1e7, '1.0E7'],
    [12345678, '1.2345678E7'],
    [1e16, '1.0E16']
  ]
  for (const [x, java] of integral) assert.equal(javaDoubleToString(x), java, `javaDoubleToString(${x})`)
})

test('an integral value from 2^58 to 2^63 loses the digits below its precision, rounded half up', () => {
  // 2^61 = 2305843009213693952: its last two digits (52) round the 9 up, and the zeros go.
  assert.equal(javaDoubleToString(2 ** 61), '2.305843009213694E18')
  // 2979223632812499968: 68 rounds up through the 9s.
  assert.equal(javaDoubleToString(2979223632812500000), '2.9792236328125E18')
  // 2^62 = 4611686018427387904: the last two digits (04) round down, keeping 17 digits.
  assert.equal(javaDoubleToString(2 ** 62), '4.6116860184273879E18')
})

test('rounding the last digit up can carry out of the first: 9.9 becomes 1.0 with the next exponent', () => {
  // 202 and 2 times Double.MIN_VALUE: the digit loop ends on 9s that the rounding turns into 1.0.
  assert.equal(javaDoubleToString(1e-321), '1.0E-321')
  assert.equal(javaDoubleToString(2 * Number.MIN_VALUE), '1.0E-323')
})

test('the digit loop stops once the digits are within half an ulp, at the place Java 17 stops', () => {
  // 0.3 and 0.009 are developed in long arithmetic; 9.5E21 is one where Java 17 keeps a digit too many.
  assert.equal(javaDoubleToString(0.1), '0.1')
  assert.equal(javaDoubleToString(0.3), '0.3')
  assert.equal(javaDoubleToString(0.009), '0.009')
  assert.equal(javaDoubleToString(9.5e21), '9.500000000000001E21')
})

test('a value exactly half a unit from its digits: the long and big-integer paths each round it as Java does', () => {
  // 1e23 lies exactly between two doubles; the lower one prints 9.999999999999999E22 through the long path.
  // Scaled by 2^23 the same tie goes through the big-integer path, whose stopping test is inclusive.
  assert.equal(javaDoubleToString(1e23), '9.999999999999999E22')
  assert.equal(javaDoubleToString(1e23 * 2 ** 23), '8.388608E29')
  assert.equal(javaDoubleToString(8.388608000000001e29), '8.388608000000001E29')
  assert.equal(javaDoubleToString(8.302518232678401e26), '8.302518232678401E26')
})

test('a remainder of exactly half the last digit rounds that digit to even', () => {
  // 7 * 2^-23 = 8.3446502685546875E-7 and 83 * 2^-22 = 1.97887420654296875E-5 exactly: the digits stop
  // before the final 5, and the odd 7 goes up to 8.
  assert.equal(javaDoubleToString(8.344650268554688e-7), '8.344650268554688E-7')
  assert.equal(javaDoubleToString(1.9788742065429688e-5), '1.9788742065429688E-5')
})
