import { test } from 'node:test'
import assert from 'node:assert/strict'
import { negotiate, guessFormat } from '../../../../src/gateway/invoke/negotiate'

const cases: Array<[string, string, string]> = [
  // Content-Type, Accept, expected format or error code
  ['application/json', '', 'json'],
  ['application/json; charset=utf-8', '', 'json'],
  ['application/json; charset="UTF-8"', '', 'json'],
  ['application/vnd.api+json', '', 'json'],
  ['APPLICATION/JSON', '', 'json'],
  ['application/xml', '', 'xml'],
  ['text/xml', '', 'xml'],
  ['application/soap+xml', '', 'xml'],
  ['', 'application/json', 'json'],
  ['', 'application/xml', 'xml'],
  ['', 'text/xml', 'xml'],
  ['', 'application/xml;q=0.5, application/json', 'json'],
  ['', 'application/json;q=0.2, application/xml;q=0.9', 'xml'],
  ['', 'application/json, application/xml', 'json'],
  ['application/json', '*/*', 'json'],
  ['application/xml', '*/*', 'xml'],
  ['application/json', 'application/*', 'json'],
  ['text/xml', 'text/*', 'xml'],
  ['application/json', 'application/xml, application/json;q=0.1', 'json'],
  ['application/json', 'application/json;q=0', 'FORMAT_MISMATCH'],
  ['application/json', 'application/xml', 'FORMAT_MISMATCH'],
  ['application/xml', 'application/json', 'FORMAT_MISMATCH'],
  ['application/json', 'text/html', 'FORMAT_MISMATCH'],
  ['', '', 'UNSUPPORTED_MEDIA_TYPE'],
  ['', '*/*', 'UNSUPPORTED_MEDIA_TYPE'],
  ['', 'text/html', 'UNSUPPORTED_MEDIA_TYPE'],
  ['text/plain', 'application/json', 'UNSUPPORTED_MEDIA_TYPE'],
  ['application/x-www-form-urlencoded', '', 'UNSUPPORTED_MEDIA_TYPE'],
  ['application/json; charset=latin1', '', 'UNSUPPORTED_MEDIA_TYPE'],
  ['garbage', '', 'UNSUPPORTED_MEDIA_TYPE']
]

for (const [ct, accept, expected] of cases) {
  test(`Content-Type '${ct}', Accept '${accept}' → ${expected}`, () => {
    const r = negotiate(ct, accept)
    if ('format' in r) assert.equal(r.format, expected)
    else {
      assert.equal(r.code, expected)
      assert.ok(r.detail.length > 0)
    }
  })
}

test('error bodies follow an XML Content-Type or an XML-only Accept', () => {
  assert.equal(guessFormat('application/xml', 'application/json'), 'xml')
  assert.equal(guessFormat('', 'text/xml'), 'xml')
  assert.equal(guessFormat('', ''), 'json')
  assert.equal(guessFormat('text/plain', 'application/xml'), 'json')
})
