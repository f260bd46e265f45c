// How the differential tests put an answer of ours beside Java's (outcomes.ts): what counts as agreeing,
// what kind of refusal each of Java's exceptions is, and which of ours are crashes. A slip here would
// pass differences as agreements, whatever the departures say.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { t } from '../../src/microservice/descriptors/descriptors'
import { ValueError } from '../../src/microservice/serializers/errors'
import { SyntaxErrorAt } from '../../src/common/errors/syntax'
import { DECODER, agree, javaOutcome, ours, serializerFor, type Outcome } from './outcomes'

test('serializerFor: the "+aliases" setups, and only they, write the registered aliases', () => {
  const d = t.object('com.x.In', { a: t.int })
  const aliases = new Map([['com.x.In', 'in']])
  const written = (setup: Parameters<typeof serializerFor>[0]): string =>
    String(serializerFor(setup, aliases).serialize({ a: 1 }, d)).replace(/\n */g, '')
  assert.equal(written('alphaXml'), '<com.x.In><a>1</a></com.x.In>')
  assert.equal(written('alphaXml+aliases'), '<in><a>1</a></in>')
  assert.equal(written('alphaJson'), '{"com.x.In":{"a":1}}')
  assert.equal(written('alphaJson+aliases'), '{"in":{"a":1}}')
  assert.equal(written('betaXml'), '<In><a>1</a></In>')
  assert.equal(written('betaJson'), '{"a":1}')
})

test('DECODER reads bytes that are not UTF-8 as U+FFFD rather than failing', () => {
  assert.equal(DECODER.decode(Buffer.from([0x61, 0xff, 0x62])), 'a\ufffdb')
})

test('ours: our refusals by kind; any other error is a crash', () => {
  const as = (x: number): Outcome => ({ value: x })
  assert.deepEqual(
    ours(() => 5, as),
    { value: 5 }
  )
  assert.deepEqual(
    ours(() => {
      throw new ValueError('no')
    }, as),
    { error: 'ValueError', message: 'no', refusal: 'value', crash: false }
  )
  assert.deepEqual(
    ours(() => {
      throw new SyntaxErrorAt('bad', 3)
    }, as),
    { error: 'SyntaxErrorAt', message: 'bad at byte 3', refusal: 'syntax', crash: false }
  )
  assert.deepEqual(
    ours(() => {
      throw new TypeError('x is undefined')
    }, as),
    { error: 'TypeError', message: 'x is undefined', refusal: 'value', crash: true }
  )
})

test("javaOutcome: Java's values and texts as they are; its exceptions by the kind of their innermost cause", () => {
  assert.deepEqual(javaOutcome({ text: '<a/>' }), { text: '<a/>' })
  assert.deepEqual(javaOutcome({ value: 5 }), { value: 5 })
  assert.deepEqual(javaOutcome({}), { value: null })
  assert.deepEqual(javaOutcome({ error: 'ConversionException' }), {
    error: 'ConversionException',
    message: '',
    refusal: 'value'
  })
  const syntax = (rootCause: string, message = 'm'): Outcome['refusal'] =>
    javaOutcome({ error: 'E', message, rootCause }).refusal
  assert.equal(syntax('com.ctc.wstx.exc.WstxUnexpectedCharException'), 'syntax')
  assert.equal(syntax('com.thoughtworks.xstream.io.StreamException'), 'syntax')
  // A class whose name only starts like a parser's exception is not one.
  assert.equal(syntax('com.x.StreamExceptionHandler'), 'value')
  // Jackson reports a number out of range as a parse exception: a value refused. Only at the start.
  assert.equal(
    syntax('com.fasterxml.jackson.core.JsonParseException', 'Numeric value (9) out of range of int'),
    'value'
  )
  assert.equal(
    syntax('com.fasterxml.jackson.core.JsonParseException', 'at Numeric value (9) out of range of int'),
    'syntax'
  )
})

test('agree: the same value or text, or refusals of one kind; a crash of ours agrees with nothing', () => {
  const d = t.int
  const value: Outcome = { error: 'ValueError', message: 'a', refusal: 'value' }
  const syntax: Outcome = { error: 'XmlSyntaxError', message: 'b', refusal: 'syntax' }
  assert.equal(agree({ value: 1 }, { value: 1 }, d), true)
  assert.equal(agree({ value: 1 }, { value: 2 }, d), false)
  assert.equal(agree({ text: 'x' }, { text: 'x' }, d), true)
  assert.equal(agree({ text: 'x' }, { text: 'y' }, d), false)
  assert.equal(agree({ value: 1 }, { text: '1' }, d), false)
  assert.equal(agree(value, { ...value, error: 'ConversionException', message: 'c' }, d), true)
  assert.equal(agree(value, syntax, d), false)
  assert.equal(agree(syntax, value, d), false)
  assert.equal(agree(value, { value: 1 }, d), false)
  assert.equal(agree({ value: 1 }, value, d), false)
  assert.equal(agree({ ...value, crash: true }, value, d), false)
  assert.equal(agree({ value: 1, crash: true }, { value: 1 }, d), false)
  // A refusal is no null, and an error without a kind is still an error.
  assert.equal(agree(value, { value: null }, d), false)
  assert.equal(agree({ value: null }, value, d), false)
  assert.equal(agree({ error: 'TypeError' }, { value: 1 }, d), false)
  assert.equal(agree({ value: 1 }, { error: 'ConversionException' }, d), false)
})
