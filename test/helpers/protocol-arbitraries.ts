// Random field values for the internal protocol's property tests (the hand-written frames against
// protobufjs): strings of every kind a call may carry, and call contexts built from them.
import fc from 'fast-check'
import type { gateway } from '../../src/common/protocol/generated/gateway'

/** Any string: code units, graphemes, non-ASCII, empty, past the 64-byte loop copy. */
export const wireText = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  fc.constantFrom('', 'é', '日本', '😀', 'a'.repeat(200))
)

const maybe = fc.option(wireText, { nil: null })

/** A call context with any of its fields absent (null), and 0 to 4 privilege names. */
export const callContext: fc.Arbitrary<gateway.ICallContext> = fc.record({
  locale: maybe,
  privilegeNames: fc.array(wireText, { maxLength: 4 }),
  requestId: maybe,
  sessionId: maybe,
  user: maybe,
  clientApplicationName: maybe,
  ip: maybe,
  traceparent: maybe,
  tracestate: maybe,
  certificateSubject: maybe
})
