// What the date rules answer where the differential tests (test/differential/dates/) see only "read"
// or "refused": which of Jackson's refusals a text gets, as Jackson words it, and the messages' bounds.
// The instants themselves are held to Java's there.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import {
  jacksonDate,
  parseJacksonDate,
  parseXStreamDate,
  xstreamDate
} from '../../../../../src/microservice/serializers/java/dates'

const NOT_A_LONG = /from number .*: not a valid long/
const OUTSIDE = /outside the range of a JavaScript Date/

test('epoch milliseconds past a long are not a long, as Jackson says; a long past a JavaScript Date is that', () => {
  assert.throws(() => jacksonDate('9223372036854775808'), NOT_A_LONG)
  assert.throws(() => jacksonDate('-9223372036854775809'), NOT_A_LONG)
  assert.throws(() => jacksonDate('9223372036854775807'), OUTSIDE)
  assert.throws(() => jacksonDate('-9223372036854775808'), OUTSIDE)
  assert.equal(jacksonDate('8640000000000000').getTime(), 8.64e15)
  assert.equal(jacksonDate('-8640000000000000').getTime(), -8.64e15)
  // The message holds the first 40 characters of the number, never more.
  const long = `9${'0'.repeat(60)}`
  assert.throws(
    () => jacksonDate(long),
    (err: Error) => err.message.includes(long.slice(0, 40)) && !err.message.includes(long.slice(0, 41))
  )
})

test('digits alone are epoch milliseconds within 19 of them; 20 digits are not a number to Jackson', () => {
  assert.equal(parseJacksonDate('1700000000000')!.getTime(), 1.7e12)
  assert.equal(parseJacksonDate(' 1700000000000\t')!.getTime(), 1.7e12)
  assert.equal(parseJacksonDate('-1700000000000')!.getTime(), -1.7e12)
  assert.throws(() => parseJacksonDate('92233720368547758070'), /not a valid representation/)
  assert.throws(() => parseJacksonDate('9223372036854775808'), NOT_A_LONG)
  assert.equal(parseJacksonDate(''), null)
  assert.equal(parseJacksonDate('null'), null)
})

test("what looks like ISO-8601 (a digit, three more characters, '-', a digit) must be it; the rest is RFC 1123", () => {
  const iso = /not a date of the form 'yyyy-MM-dd/
  const rfc = /not a valid representation/
  assert.throws(() => parseJacksonDate('2023-1x'), iso)
  assert.throws(() => parseJacksonDate('2023-11-14T22:13:2'), iso)
  assert.throws(() => parseJacksonDate('2x23-11-14T22:13:20Z'), iso)
  assert.throws(() => parseJacksonDate('2023-1'), rfc)
  assert.throws(() => parseJacksonDate('x023-11-14T22:13:20Z'), rfc)
  assert.throws(() => parseJacksonDate('202x-11-14T22:13:20Z'), rfc)
  assert.throws(() => parseJacksonDate('2023x11-14T22:13:20Z'), rfc)
  assert.throws(() => parseJacksonDate('2023-x1-14T22:13:20Z'), rfc)
  assert.equal(parseJacksonDate('2023-11-14')!.toISOString(), '2023-11-14T00:00:00.000Z')
  assert.throws(() => parseJacksonDate('2023-11-14T22:13:20.1234567890Z'), /at most 9 digits/)
})

test("XStream's refusal names at most 40 characters of the text; an invalid Date is not written", () => {
  const text = `not a date ${'x'.repeat(60)}`
  assert.throws(
    () => parseXStreamDate(text),
    (err: Error) => err.message.includes(text.slice(0, 40)) && !err.message.includes(text.slice(0, 41))
  )
  assert.throws(() => xstreamDate(new Date(NaN)), /invalid Date/)
})
