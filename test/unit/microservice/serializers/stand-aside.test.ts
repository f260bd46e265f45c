// The one signal a fast serializer tier hands an input on with (stand-aside.ts): STAND_ASIDE itself,
// or the client's input refused by a converter the last tier shares; nothing else.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { STAND_ASIDE, standsAside } from '../../../../src/microservice/serializers/stand-aside'
import { ValueError } from '../../../../src/microservice/serializers/errors'
import { JsonSyntaxError } from '../../../../src/common/json/scan'
import { readBetaJsonParsed } from '../../../../src/microservice/serializers/beta/beta-json-reader'
import { t } from '../../../../src/microservice/descriptors/descriptors'
import { defaultSerializers } from '../../../../src/microservice/serializers'
import { DEFAULT_READ_LIMITS } from '../../../../src/common/contract/limits'

test('what stands aside: the signal and the client input refused; a bug does not', () => {
  assert.equal(standsAside(STAND_ASIDE), true)
  assert.equal(standsAside(new ValueError('For input string: "x"')), true)
  assert.equal(standsAside(new JsonSyntaxError('digit expected', 3)), true)
  for (const bug of [new TypeError('x is undefined'), new RangeError('Maximum call stack size exceeded'), undefined])
    assert.equal(standsAside(bug), false)
})

test('the JSON.parse tier stands aside on what JSON.parse refuses, and reads what it accepts', () => {
  const In = t.object('com.example.In', { a: t.int, b: t.int })
  for (const text of ['{"a":1,', '\uFEFF{"a":1,"b":2}', '{"a":1,"b":2} x', '{"a":1,"b":2,"c":3}'])
    assert.equal(readBetaJsonParsed(text, In, DEFAULT_READ_LIMITS), STAND_ASIDE, text)
  assert.deepEqual(readBetaJsonParsed('{"a":1,"b":2}', In, DEFAULT_READ_LIMITS), { a: 1, b: 2 })
})

test('a date that is not one, in alpha JSON or XML, is the client error (BAD_ARGUMENT), not a bug in every tier', () => {
  // Found by making the fast tiers propagate what is not their signal: LocalDate's own TypeError
  // had been swallowed by the fast tiers and surfaced from the tree reader as a 500.
  const s = defaultSerializers()
  const cases: Array<[string, string]> = [
    ['alphaJsonSerializer', '{"local-date":"1970"}'],
    ['alphaJsonSerializer', '{"local-date":"2023-02-30"}'],
    ['alphaXmlSerializer', '<local-date>1970</local-date>']
  ]
  for (const [bean, text] of cases) {
    const serializer = s[bean as 'alphaJsonSerializer']
    assert.throws(
      () => serializer.deserialize(Buffer.from(text), t.LocalDate),
      (err: unknown) => err instanceof ValueError && /is not a date of the form YYYY-MM-DD/.test(err.message),
      `${bean} ${text}`
    )
  }
})
