// The shared bounds: every listener thread admits calls and body bytes against one total.
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { CallBounds } from '../../../../src/gateway/invoke/bounds'

describe('shared bounds', () => {
  test('two views of one memory admit against one total', () => {
    const a = new CallBounds(3, 100)
    const b = new CallBounds(3, 100, a.shared)
    assert.equal(a.enter(), true)
    assert.equal(b.enter(), true)
    assert.equal(a.enter(), true)
    assert.equal(b.enter(), false)
    assert.equal(a.inFlight, 3)
    assert.equal(a.reserve(60), true)
    assert.equal(b.reserve(60), false)
    assert.equal(b.bodyBytes, 60)
    a.unreserve(60)
    b.leave()
    assert.equal(a.inFlight, 2)
    assert.equal(b.bodyBytes, 0)
  })

  test('body bytes up to the bound exactly are admitted; past it, held bytes still admit an empty body', () => {
    const a = new CallBounds(3, 100)
    assert.equal(a.reserve(100), true, 'the bound itself is within the bound')
    assert.equal(a.reserve(1), false)
    assert.equal(a.bodyBytes, 100)
    a.unreserve(100)
    // A body read before its call was admitted is counted past the bound; an empty one still goes.
    a.hold(150)
    assert.equal(a.reserve(0), true)
    assert.equal(a.bodyBytes, 150)
  })
})
