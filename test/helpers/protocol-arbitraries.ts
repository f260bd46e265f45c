// Random field values for the internal protocol's property tests (the hand-written frames against
// protobufjs): strings of every kind a call may carry, and call contexts built from them.
import fc from 'fast-check'
import type { gateway } from '../../src/common/protocol/generated/gateway'

/** Any string: code units, graphemes, non-ASCII, empty, either side of the loop copy. */
export const wireText = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  // Either side of LOOP_COPY_MAX (wire-bytes.ts), where measuring and copying change hands.
  fc.constantFrom('', 'é', '日本', '😀', 'a'.repeat(32), 'a'.repeat(33), 'é'.repeat(40), 'a'.repeat(200))
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
