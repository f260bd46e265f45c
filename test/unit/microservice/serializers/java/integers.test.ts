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
  jacksonInteger,
  javaTrim,
  plainDecimal
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

// The expectations below were asked of OpenJDK 17.0.15 with XStream 1.4.20 and Jackson 2.14 (Long.decode,
// Character.digit, String.trim, IntConverter/LongConverter.fromString, ObjectMapper.readValue of a JSON string).

/** The message of the ValueError that f throws. */
const messageOf = (f: () => unknown): string => {
  try {
    f()
  } catch (err) {
    assert.ok(err instanceof ValueError, String(err))
    return err.message
  }
  return assert.fail('no error thrown')
}

test('Character.digit at the edges of each range it reads, and the characters just outside them', () => {
  const cases: Array<[number, number, number]> = [
    [0x20, 10, -1], // space, below '0'
    [0x2f, 10, -1], // '/'
    [0x30, 10, 0],
    [0x39, 10, 9],
    [0x3a, 10, -1], // ':'
    [0x3a, 36, -1],
    [0x40, 36, -1], // '@'
    [0x41, 36, 10],
    [0x5a, 36, 35], // 'Z'
    [0x5a, 16, -1], // a letter beyond the radix
    [0x5b, 36, -1],
    [0x60, 36, -1],
    [0x61, 16, 10],
    [0x7a, 36, 35], // 'z'
    [0x7b, 36, -1],
    [0xff10, 10, 0], // FULLWIDTH DIGIT ZERO
    [0xff19, 10, 9],
    [0xff20, 36, -1],
    [0xff21, 36, 10], // FULLWIDTH LATIN CAPITAL A
    [0xff3a, 36, 35], // FULLWIDTH LATIN CAPITAL Z
    [0xff3b, 36, -1],
    [0xff40, 36, -1],
    [0xff41, 36, 10], // FULLWIDTH LATIN SMALL A
    [0xff5a, 36, 35], // FULLWIDTH LATIN SMALL Z
    [0xff5b, 36, -1],
    [0xdfff, 10, -1] // the other end of the surrogates
  ]
  for (const [unit, radix, digit] of cases)
    assert.equal(javaDigit(unit, radix), digit, `Character.digit(U+${unit.toString(16)}, ${radix})`)
})

test("NumberFormatException's message names the text parseLong was given, and the radix unless it is 10", () => {
  // Long.decode parses what follows the sign and the prefix, so that is the text its message quotes.
  assert.equal(
    messageOf(() => javaLongDecode('1e3')),
    'For input string: "1e3"'
  )
  assert.equal(
    messageOf(() => javaLongDecode('-9223372036854775809')),
    'For input string: "-9223372036854775809"'
  )
  assert.equal(
    messageOf(() => javaLongDecode('0x8000000000000000')),
    'For input string: "8000000000000000" under radix 16'
  )
  assert.equal(
    messageOf(() => javaLongDecode('0x1:')),
    'For input string: "1:" under radix 16'
  )
  assert.equal(
    messageOf(() => javaLongDecode('#')),
    'For input string: "" under radix 16'
  )
  assert.equal(
    messageOf(() => javaLongDecode('08')),
    'For input string: "8" under radix 8'
  )
  // XStream's IntConverter words its own range refusal the same way, with the whole text.
  assert.equal(
    messageOf(() => xstreamInt('4294967296')),
    'For input string: "4294967296"'
  )
  assert.equal(
    messageOf(() => xstreamInt('0x100000000')),
    'For input string: "0x100000000"'
  )
  // Sixty characters are quoted whole, as Java quotes them.
  const sixty = `${'1234567890'.repeat(5)}123456789x`
  assert.equal(
    messageOf(() => javaLongDecode(sixty)),
    `For input string: "${sixty}"`
  )
})

test("Long.decode's own refusals: an empty text, and a sign after the sign or the radix prefix", () => {
  // XStream's LongConverter words an empty text its own way (For input string: ""), so it is not listed.
  for (const f of [javaLongDecode, xstreamInt])
    assert.equal(
      messageOf(() => f('')),
      'Zero length string'
    )
  for (const s of ['--5', '+-5', '0x-10', '-#+1'])
    assert.equal(
      messageOf(() => javaLongDecode(s)),
      'Sign character in wrong position',
      s
    )
})

test('the plain-decimal shortcut reads exactly -?[1-9][0-9]* of at most maxDigits digits, and "0"', () => {
  // Its values are Long.decode's; null sends every other text (octal, hex, signs, other digits) the long way.
  const read: Array<[string, number]> = [
    ['0', 0],
    ['1', 1],
    ['5', 5],
    ['9', 9],
    ['10', 10],
    ['12', 12],
    ['19', 19],
    ['-5', -5],
    ['123456789', 123456789],
    ['-123456789', -123456789]
  ]
  for (const [s, v] of read) assert.equal(plainDecimal(s, 9), v, s)
  for (const s of [
    '',
    '-',
    '-0',
    '00',
    '012',
    '+5',
    'a1',
    '1a',
    '1/',
    '1:',
    '1 ',
    '\u0663',
    '1234567890',
    '-1234567890'
  ])
    assert.equal(plainDecimal(s, 9), null, JSON.stringify(s))
})

test("XStream's long: only #+16, 0x+16 and 0+22 (starting 1) characters are read as 64 unsigned bits", () => {
  const ok: Array<[string, bigint]> = [
    ['0XFFFFFFFFFFFFFFFF', -1n], // capital X as well
    ['#00000000000000001', 1n], // # and 17 hex digits: Long.decode, not the 16-digit split
    ['0x00000000000000001', 1n],
    ['01234567012345670', 0o1234567012345670n], // 17 characters from 0: octal, through Long.decode
    ['012345670123456701', 0o12345670123456701n], // 18 characters from 0 without x: octal too
    ['#0000000000000000000010', 16n], // 23 characters, second not 1: Long.decode's hex
    ['00000000000000000000010', 8n],
    // XStream does not look at the first character here: # and 22 digits with a leading 1 are read as octal.
    ['#1000000000000000000000', -(2n ** 63n)]
  ]
  for (const [s, v] of ok) assert.equal(xstreamLong(s), v, s)
  for (const s of ['1x0000000000000001', '-1000000000000000000000', '-0x8000000000000001'])
    refused(() => xstreamLong(s))
})

test('String.trim: characters up to U+0020 come off either end, and only those', () => {
  assert.equal(javaTrim(' 6'), '6')
  assert.equal(javaTrim('6 '), '6')
  assert.equal(javaTrim('\u00006\u0020'), '6')
  assert.equal(javaTrim(' 6 7 '), '6 7')
  assert.equal(javaTrim('   '), '')
  assert.equal(javaTrim(''), '')
  assert.equal(javaTrim('\u00a06\u2003'), '\u00a06\u2003')
  assert.equal(jacksonInteger(' 6', 'int'), 6)
  assert.equal(jacksonInteger('6 ', 'long'), 6n)
})

test("Jackson's coercion: Integer's range, and its message naming the type and quoting the text", () => {
  assert.equal(jacksonInteger('2147483647', 'int'), 2147483647)
  assert.equal(jacksonInteger('-2147483648', 'int'), -2147483648)
  assert.equal(jacksonInteger('2147483648', 'long'), 2147483648n)
  assert.equal(jacksonInteger('-2147483649', 'long'), -2147483649n)
  // Jackson's message reads "... from String "2147483648": Overflow: numeric value (2147483648) out of range
  // of `java.lang.Integer` (-2147483648 -2147483647)"; ours is the reason it gives.
  for (const s of ['2147483648', '-2147483649'])
    assert.equal(
      messageOf(() => jacksonInteger(s, 'int')),
      `Overflow: numeric value (${s}) out of range of \`java.lang.Integer\``
    )
  // The first line of Jackson's InvalidFormatException, word for word.
  assert.equal(
    messageOf(() => jacksonInteger('abc', 'int')),
    'Cannot deserialize value of type `java.lang.Integer` from String "abc": not a valid `java.lang.Integer` value'
  )
  assert.equal(
    messageOf(() => jacksonInteger(' abc ', 'long')),
    'Cannot deserialize value of type `java.lang.Long` from String "abc": not a valid `java.lang.Long` value'
  )
  const forty = 'abcdefghij'.repeat(4)
  assert.equal(
    messageOf(() => jacksonInteger(forty, 'long')),
    `Cannot deserialize value of type \`java.lang.Long\` from String "${forty}": not a valid \`java.lang.Long\` value`
  )
})
