// How an answer of ours and Java's are put side by side: each as an Outcome (a value, a text, or a
// refusal of a kind), and whether two agree. The fidelity run (fidelity.ts), the found cases and the
// cross-runtime test all judge by these; the departures (departures.ts) explain what they do not.
import type { Descriptor } from '../../src/microservice/descriptors/descriptors'
import {
  createAlphaJsonSerializer,
  createAlphaXmlSerializer,
  createBetaJsonSerializer,
  createBetaXmlSerializer,
  type Serializer
} from '../../src/microservice/serializers'
import { ValueError } from '../../src/microservice/serializers/errors'
import { SyntaxErrorAt } from '../../src/common/errors/syntax'
import { canonWire, type Answer, type Setup, type Wire } from '../helpers/oracle'

/** Our serializer of a setup; the "+aliases" setups get the registered aliases. */
export function serializerFor(setup: Setup, registered: ReadonlyMap<string, string>): Serializer {
  const aliases = setup.endsWith('+aliases') ? new Map(registered) : new Map<string, string>()
  switch (setup) {
    case 'alphaXml':
    case 'alphaXml+aliases':
      return createAlphaXmlSerializer(aliases)
    case 'alphaJson':
    case 'alphaJson+aliases':
      return createAlphaJsonSerializer(aliases)
    case 'betaXml':
      return createBetaXmlSerializer({})
    case 'betaJson':
      return createBetaJsonSerializer({})
  }
}

export interface Outcome {
  text?: string
  value?: Wire
  /** Our error class, or Java's. */
  error?: string
  message?: string
  /** What kind of refusal: the client's text is not JSON/XML, or it is but its value does not fit. */
  refusal?: RefusalKind
  /** Our error is not a refusal of ours: a bug, whatever Java did. */
  crash?: boolean
}

export const DECODER = new TextDecoder('utf-8', { fatal: false })

export type RefusalKind = 'syntax' | 'value'

export function ours<T>(f: () => T, as: (x: T) => Outcome): Outcome {
  try {
    return as(f())
  } catch (e) {
    const err = e as Error
    return {
      error: err.constructor.name,
      message: err.message,
      refusal: e instanceof SyntaxErrorAt ? 'syntax' : 'value',
      crash: !(e instanceof ValueError || e instanceof SyntaxErrorAt)
    }
  }
}

/**
 * Java's parse errors, by the class of the innermost cause: XStream's StreamException (XPP3's and
 * Jettison's parse errors) and Jackson's JsonParseException (also for XML, through Woodstox), with
 * the readers' own exceptions under them. Anything else (a ConversionException, Jackson's mapping
 * exceptions, a NumberFormatException) refuses a value.
 */
const JAVA_SYNTAX =
  /(StreamException|JsonParseException|XmlPullParserException|JSONException|XMLStreamException|WstxException|WstxParsingException|WstxUnexpectedCharException|WstxEOFException|WstxLazyException)$/

export function javaOutcome(a: Answer | undefined): Outcome {
  // A missing answer or the oracle's own failure is not Java refusing: the run must stop.
  if (a === undefined) throw new Error('the oracle gave no answer for a request')
  if (a.oracleFailure === true) throw new Error(`the oracle failed (not the serializer): ${a.error}: ${a.message}`)
  if (a.error !== undefined) {
    // Jackson's XML parser reports a number out of its type's range as a JsonParseException.
    const outOfRange = /^Numeric value \(.*\) out of range of /.test(a.message ?? '')
    const refusal: RefusalKind = !outOfRange && JAVA_SYNTAX.test(a.rootCause ?? a.error) ? 'syntax' : 'value'
    return { error: a.error, message: a.message ?? '', refusal }
  }
  return a.text !== undefined ? { text: a.text } : { value: a.value ?? null }
}

/** Same value or text; or both refused, for the same kind of reason (syntax, or a value that does not fit). */
export function agree(o: Outcome, j: Outcome, d: Descriptor): boolean {
  if (o.crash === true) return false
  if (j.error !== undefined || o.error !== undefined)
    return j.error !== undefined && o.error !== undefined && j.refusal === o.refusal
  if (j.text !== undefined) return o.text === j.text
  return JSON.stringify(canonWire(o.value ?? null, d)) === JSON.stringify(canonWire(j.value ?? null, d))
}
