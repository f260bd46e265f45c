// The example microservice of SPEC.md: `calculator` with the four operation kinds, `diagnostics`
// to see what a call carries, and `internal`, which is not remotely enabled.
import { t, method, service, defineMicroservice, type CallContext } from 'invocation-gateway/runtime'

export const In = t.object('com.example.In', { a: t.Integer, b: t.Integer })
export const Out = t.object('com.example.Out', { result: t.Integer })
export const CallContextType = t.object('com.example.CallContext', {
  locale: t.String,
  privilegeNames: t.list(t.String),
  requestId: t.String,
  sessionId: t.String,
  user: t.String,
  clientApplicationName: t.String,
  ip: t.String,
  privileged: t.Boolean
})

/** Integer arithmetic as Java does it: a product that overflows wraps around. */
function times(a: number | null, b: number | null): number {
  return Math.imul(a ?? 0, b ?? 0)
}

/** Σ a·b·factor as Java's long arithmetic gives it (wrapping at 64 bits), exact beyond 2^53. */
function sumOfProducts(list: ReadonlyArray<{ a: number | null; b: number | null } | null>, factor: number): bigint {
  let fast = 0
  let exact = 0n
  for (const item of list) {
    const p = (item?.a ?? 0) * (item?.b ?? 0) * factor
    if (Number.isSafeInteger(p) && Number.isSafeInteger(fast + p)) fast += p
    else exact += BigInt(item?.a ?? 0) * BigInt(item?.b ?? 0) * BigInt(factor)
  }
  return BigInt.asIntN(64, exact + BigInt(fast))
}

const calculator = service(
  'calculator',
  [
    // A: Integer, Integer → Integer (RMC only)
    method('multiplyInts', {
      params: [t.Integer, t.Integer],
      returns: t.Integer,
      handler: (_ctx, a, b) => times(a, b)
    }),
    // B: In → Out
    method('multiply', {
      params: [In],
      returns: Out,
      handler: (_ctx, input) => ({ result: times(input?.a ?? 0, input?.b ?? 0) }),
      operation: {
        summary: 'Multiplies a by b',
        notes: 'Integer arithmetic as Java does it: a product beyond 32 bits wraps around.',
        parameter: { name: 'in', description: 'the two factors', example: { a: 6, b: 7 } },
        returns: { description: 'the product in `result`', example: { result: 42 } }
      }
    }),
    // C: In → Integer
    method('multiplyToInt', {
      params: [In],
      returns: t.Integer,
      handler: (_ctx, input) => times(input?.a ?? 0, input?.b ?? 0),
      operation: {
        summary: 'Multiplies a by b and returns the bare number',
        parameter: { name: 'in', description: 'the two factors', example: { a: 6, b: 7 } },
        returns: { description: 'the product', example: 42 }
      }
    }),
    // D: Integer, Integer → Out (RMC only)
    method('multiplyIntsToOut', {
      params: [t.Integer, t.Integer],
      returns: Out,
      handler: (_ctx, a, b) => ({ result: times(a, b) })
    }),
    // The large-argument case of the benchmarks: RMC [[{"a":..,"b":..}, ...], factor].
    method('sumProducts', {
      params: [t.list(In), t.Integer],
      returns: t.Long,
      handler: (_ctx, list, factor) => sumOfProducts(list ?? [], factor ?? 0)
    })
  ],
  {
    title: 'calculator',
    description: 'The four operation kinds of SPEC; the ROA ones are documented here.',
    tags: ['example']
  }
)

const diagnostics = service('diagnostics', [
  method('context', {
    params: [],
    returns: CallContextType,
    handler: (ctx: CallContext) => ({
      locale: ctx.locale,
      privilegeNames: [...ctx.privilegeNames],
      requestId: ctx.requestId,
      sessionId: ctx.sessionId,
      user: ctx.user,
      clientApplicationName: ctx.clientApplicationName,
      ip: ctx.ip,
      privileged: ctx.privileged
    })
  }),
  method('echo', { params: [t.String], returns: t.String, handler: (_ctx, s) => s }),
  method('echoLong', { params: [t.Long], returns: t.Long, handler: (_ctx, n) => n })
])

const internal = service('internal', [
  method('secret', { params: [t.String], returns: t.String, handler: () => 'not for callers' })
])

export default defineMicroservice({
  services: [calculator, diagnostics, internal],
  platformRegularExpressionToRemotelyEnabled: ['calculator', 'diagnostics'],
  // Registered on the alpha serializers (SPEC, serialization rule 4): <in>, <out>, <context>.
  aliases: { 'com.example.In': 'in', 'com.example.Out': 'out', 'com.example.CallContext': 'context' }
})
