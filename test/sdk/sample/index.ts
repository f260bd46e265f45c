// A microservice as an outside author writes it: only 'invocation-gateway/runtime' is imported.
// test/sdk/sdk.test.ts compiles it with declaration output and reads what the .d.ts references.
import {
  t,
  method,
  service,
  defineMicroservice,
  createBetaJsonSerializer,
  ServiceError,
  runtime,
  type CallContext,
  type Serializer
} from 'invocation-gateway/runtime'

export const Order = t.object('com.example.Order', {
  id: t.Long,
  lines: t.list(t.object('com.example.Line', { sku: t.String, qty: t.Integer }))
})
export const Total = t.object('com.example.Total', { amount: t.Double })

/** A bean of its own, configured (SPEC: "its configuration is free"). */
export const betaJsonSerializer: Serializer = createBetaJsonSerializer({ pretty: true })

export const total = method('total', {
  params: [Order],
  returns: Total,
  handler: (ctx: CallContext, order) => {
    if (order?.lines == null) throw new ServiceError('an order needs lines', 422)
    if (ctx.locale === 'xx') runtime.setAvailable(false)
    return { amount: order.lines.reduce((n, l) => n + (l?.qty ?? 0), 0) }
  }
})

export default defineMicroservice({
  services: [service('orders', [total])],
  platformRegularExpressionToRemotelyEnabled: ['orders'],
  serializers: { betaJsonSerializer }
})
