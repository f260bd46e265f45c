// Integers as XStream (through Long.decode and Character.digit) reads them: vectors from the Java
// rules, properties over every notation, and no input that makes the parser throw anything but
// ValueError (a 400, never a 500).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import {
  javaDigit,
  javaLongDecode,
  xstreamInt,
  xstreamLong,
  jacksonInteger
} from '../../../../../src/microservice/serializers/java/integers'
import { ValueError } from '../../../../../src/microservice/serializers/errors'

const refused = (f: () => unknown): void => assert.throws(f, ValueError)

test('Long.decode vectors: signs, hex, #, octal, and the refusals Java makes', () => {
  const ok: Array<[string, bigint]> = [
    ['0', 0n],
    ['10', 10n],
    ['+5', 5n],
    ['-5', -5n],
    ['010', 8n],
    ['-010', -8n],
    ['0x10', 16n],
    ['0X1f', 31n],
    ['#ff', 255n],
    ['-#10', -16n],
    ['00', 0n],
    ['-0', 0n],
    ['9223372036854775807', 2n ** 63n - 1n],
    ['-9223372036854775808', -(2n ** 63n)],
    ['-0x8000000000000000', -(2n ** 63n)],
    ['\u0663', 3n],
    ['\u096b\u0660', 50n],
    ['\uff17', 7n],
    ['0x\uff21', 10n],
    ['#\uff46', 15n]
  ]
  for (const [s, v] of ok) assert.equal(javaLongDecode(s), v, JSON.stringify(s))
  for (const s of [
    '',
    '-',
    '+',
    '0x',
    '#',
    '08',
    '09',
    '07e4',
    '0x-10',
    '--5',
    '+-5',
    ' 5',
    '5 ',
    '1e3',
    '9223372036854775808',
    '0x8000000000000000',
    '\ud835\udfd5',
    '1_000',
    '0b101',
    '٣x'
  ])
    refused(() => javaLongDecode(s))
})

test("XStream's int: Long.decode, Integer.MIN_VALUE to 0xFFFFFFFF, wrapped to 32 bits", () => {
  assert.equal(xstreamInt('2147483647'), 2147483647)
  assert.equal(xstreamInt('2147483648'), -2147483648)
  assert.equal(xstreamInt('4294967295'), -1)
  assert.equal(xstreamInt('0xFFFFFFFF'), -1)
  assert.equal(xstreamInt('-2147483648'), -2147483648)
  assert.equal(xstreamInt('010'), 8)
  for (const s of ['4294967296', '-2147483649', '08', '07e4', '0x100000000']) refused(() => xstreamInt(s))
})

test("XStream's long: 16 hex or 22 octal digits are 64 unsigned bits", () => {
  assert.equal(xstreamLong('0xFFFFFFFFFFFFFFFF'), -1n)
  assert.equal(xstreamLong('#8000000000000000'), -(2n ** 63n))
  assert.equal(xstreamLong('01777777777777777777777'), -1n)
  assert.equal(xstreamLong('0x7FFFFFFFFFFFFFFF'), 2n ** 63n - 1n)
  refused(() => xstreamLong('0x1FFFFFFFFFFFFFFFF'))
})

const LONG = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n })

test('property: every notation Long.decode takes reads back to the value', () => {
  fc.assert(
    fc.property(
      LONG,
      fc.constantFrom('dec', '0x', '0X', '#', 'oct'),
      fc.boolean(),
      fc.boolean(),
      (v, form, upper, plus) => {
        const mag = v < 0n ? -v : v
        let body: string
        if (form === 'dec') body = mag.toString(10)
        else if (form === 'oct') body = mag === 0n ? '0' : `0${mag.toString(8)}`
        else body = `${form}${upper ? mag.toString(16).toUpperCase() : mag.toString(16)}`
        const text = v < 0n ? `-${body}` : plus ? `+${body}` : body
        assert.equal(javaLongDecode(text), v)
      }
    ),
    { numRuns: 2000 }
  )
})

test('property: any text either reads or is refused with ValueError, never another error', () => {
  const alphabet = fc.constantFrom(...'0123456789abcdefxX#+- e._\u0663\uff17\uff21\ud835\udfd5\u0000'.split(''))
  fc.assert(
    fc.property(
      fc.array(alphabet, { maxLength: 30 }).map((a) => a.join('')),
      (s) => {
        for (const f of [javaLongDecode, xstreamInt, xstreamLong]) {
          try {
            f(s)
          } catch (err) {
            assert.ok(err instanceof ValueError, `${JSON.stringify(s)}: ${String(err)}`)
          }
        }
      }
    ),
    { numRuns: 5000 }
  )
})

test('Character.digit: Unicode decimal digits by their place in their run of ten', () => {
  assert.equal(javaDigit(0x0669, 10), 9) // ARABIC-INDIC NINE
  assert.equal(javaDigit(0x0ce7, 10), 1) // KANNADA ONE
  assert.equal(javaDigit(0xff10, 10), 0) // FULLWIDTH ZERO
  assert.equal(javaDigit(0x41, 10), -1)
  assert.equal(javaDigit(0x41, 16), 10)
  assert.equal(javaDigit(0xd835, 10), -1) // half a surrogate pair
})

test("Jackson's coercion of text to Integer/Long: String.trim, then Integer.parseInt's rules", () => {
  assert.equal(jacksonInteger(' 6\t', 'int'), 6)
  assert.equal(jacksonInteger('+6', 'int'), 6)
  assert.equal(jacksonInteger('\u0663', 'int'), 3)
  assert.equal(jacksonInteger('-9223372036854775808', 'long'), -(2n ** 63n))
  assert.throws(() => jacksonInteger('\u00a06', 'int'), /not a valid/) // NBSP is not trimmed by String.trim
  assert.throws(() => jacksonInteger('2147483648', 'int'), /Overflow/)
  assert.throws(() => jacksonInteger('0x10', 'int'), /not a valid/) // no Long.decode here
  assert.throws(() => jacksonInteger('', 'int'), ValueError)
})

test('property: the plain-decimal shortcut reads what Long.decode and the converters read', () => {
  // Strings of signs, digits and zeros near the shortcut's edges: 9 digits for int, 15 for long.
  const text = fc.stringMatching(/^[+-]?0?[0-9]{0,18}$/)
  const viaDecode = <T>(f: () => T): T | 'refused' => {
    try {
      return f()
    } catch (err) {
      assert.ok(err instanceof ValueError)
      return 'refused'
    }
  }
  fc.assert(
    fc.property(text, (s) => {
      const int = viaDecode(() => {
        const v = javaLongDecode(s)
        if (v < -(2n ** 31n) || v > 0xffffffffn) throw new ValueError('range')
        return Number(BigInt.asIntN(32, v))
      })
      assert.deepEqual(
        viaDecode(() => xstreamInt(s)),
        int,
        s
      )
      if (s.length < 17)
        assert.deepEqual(
          viaDecode(() => xstreamLong(s)),
          viaDecode(() => javaLongDecode(s)),
          s
        )
    }),
    { numRuns: 5000 }
  )
  assert.ok(Object.is(xstreamInt('-0'), 0), '-0 reads as 0, not -0')
  assert.equal(xstreamInt('999999999'), 999999999)
  assert.equal(xstreamInt('-2147483648'), -2147483648)
  assert.equal(xstreamInt('4294967295'), -1)
  assert.equal(xstreamLong('999999999999999'), 999999999999999n)
})
