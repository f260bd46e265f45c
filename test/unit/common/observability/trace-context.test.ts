// New traceparents (src/common/observability/trace-context.ts), made a batch at a time: each one valid W3C Trace
// Context, sampled, and none repeated within or across batches.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { isValidTraceparent, newTraceparent } from '../../../../src/common/observability/trace-context'

test('new traceparents are valid, sampled, version 00, and all different, across many batches', () => {
  const seen = new Set<string>()
  const digits = new Set<string>()
  let pairs = 0
  let doubled = 0
  for (let k = 0; k < 1000; k++) {
    const tp = newTraceparent()
    assert.ok(isValidTraceparent(tp), tp)
    assert.match(tp, /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/)
    seen.add(tp)
    seen.add(tp.slice(3, 35)) // a trace id never comes back as another's
    for (const c of tp.slice(3, 52)) digits.add(c)
    const hex = tp.slice(3, 35) + tp.slice(36, 52)
    for (let j = 0; j < hex.length; j += 2, pairs++) if (hex[j] === hex[j + 1]) doubled++
  }
  assert.equal(seen.size, 2000)
  // Both nibbles of a byte are written: every hex digit shows up in 24,000 random bytes.
  assert.equal([...digits].filter((c) => c !== '-').length, 16)
  // ... each from its own nibble: a byte's two digits are the same about one time in 16.
  assert.ok(doubled / pairs < 0.1, `${doubled} of ${pairs} bytes written as two equal digits`)
})
