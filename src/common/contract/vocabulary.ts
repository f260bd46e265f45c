/**
 * The words both sides of the wire share: body formats, invocation modes and the four sequences
 * (docs/contract.md). The bottom layer: it imports nothing, and every other module takes these names from here.
 */

/** The two body formats (docs/contract.md, Calls: "The body is text, JSON or XML"). */
export type BodyFormat = 'json' | 'xml'

/** The invocation modes (docs/contract.md, Calls), chosen by X-PLATFORM-API-ID (case sensitive). */
export type ApiMode = 'ROA' | 'RMC'

export function isApiMode(s: string): s is ApiMode {
  return s === 'ROA' || s === 'RMC'
}

/** A family of serializers: alpha (XStream, Jettison) or beta (Jackson, Woodstox). */
export type SequenceFamily = 'alpha' | 'beta'

/**
 * The sequence table (docs/contract.md, Sequences): each sequence's format, the bean it looks up, and
 * the family whose shapes it writes.
 */
export const SEQUENCES = {
  alphaParamArrayXmlInOutSequence: { format: 'xml', bean: 'alphaXmlSerializer', family: 'alpha' },
  alphaParamArrayJsonInOutSequence: { format: 'json', bean: 'alphaJsonSerializer', family: 'alpha' },
  betaParamArrayXmlInOutSequence: { format: 'xml', bean: 'betaXmlSerializer', family: 'beta' },
  betaParamArrayJsonInOutSequence: { format: 'json', bean: 'betaJsonSerializer', family: 'beta' }
} as const satisfies Record<string, { format: BodyFormat; bean: string; family: SequenceFamily }>

export type SequenceName = keyof typeof SEQUENCES
/** The bean names a microservice may define to replace a sequence's default serializer. */
export type SerializerBeanName = (typeof SEQUENCES)[SequenceName]['bean']

export function isSequenceName(s: string): s is SequenceName {
  return Object.prototype.hasOwnProperty.call(SEQUENCES, s)
}

/** The root element of an RMC XML body (docs/contract.md, Body shapes). */
export const PARAM_ARRAY = 'paramArray'
