import {
  context,
  trace,
  ProxyTracerProvider,
  SpanKind,
  SpanStatusCode,
  type Attributes,
  type Span,
  type Tracer
} from '@opentelemetry/api'
import { productVersion } from '../contract/product-version'
import { isValidTraceparent } from './trace-context'

/**
 * OpenTelemetry through @opentelemetry/api only: spans exist when the user has registered an SDK
 * (a TracerProvider) before the platform or microservice started; otherwise nothing is allocated
 * per call. The parent comes from the W3C traceparent the call carries.
 */
const NOOP_PROVIDER = new ProxyTracerProvider().getDelegate()
let tracer: Tracer | null = null

/** Whether an SDK is registered (the global provider delegates to something other than the no-op). */
export function tracingActive(): boolean {
  const p = trace.getTracerProvider()
  return (p instanceof ProxyTracerProvider ? p.getDelegate() : p) !== NOOP_PROVIDER
}

export interface StartedSpan {
  readonly span: Span
  /** The traceparent naming this span, to send on. */
  readonly traceparent: string
}

export function startSpan(
  name: string,
  kind: 'server' | 'internal',
  parent: string,
  attributes: Attributes
): StartedSpan {
  tracer ??= trace.getTracer('invocation-gateway', productVersion())
  let ctx = context.active()
  if (parent !== '' && isValidTraceparent(parent)) {
    ctx = trace.setSpanContext(ctx, {
      traceId: parent.slice(3, 35),
      spanId: parent.slice(36, 52),
      traceFlags: parseInt(parent.slice(53, 55), 16) & 1,
      isRemote: true
    })
  }
  const span = tracer.startSpan(
    name,
    { kind: kind === 'server' ? SpanKind.SERVER : SpanKind.INTERNAL, attributes },
    ctx
  )
  const sc = span.spanContext()
  return { span, traceparent: `00-${sc.traceId}-${sc.spanId}-0${sc.traceFlags & 1}` }
}

/** Ends a span with the call's outcome: an HTTP status, and the problem code when it failed. */
export function endSpan(span: Span, status: number, code: string): void {
  span.setAttribute('http.response.status_code', status)
  if (code !== '') {
    span.setAttribute('invocation_gateway.code', code)
    if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR, message: code })
  }
  span.end()
}
