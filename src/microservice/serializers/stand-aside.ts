import { ValueError } from './errors'
import { SyntaxErrorAt } from '../../common/errors/syntax'

/**
 * The one way a fast tier of a serializer hands an input to the next tier: it throws (or returns)
 * STAND_ASIDE. The last tier of each format reads every form and words every error, so a fast tier
 * never has to: a value it returns is the very value the last tier would make, and where the client's
 * input is wrong it stands aside and lets the last tier say why.
 *
 * Each format's tiers, fastest first (module, then what the tier reads):
 * - beta JSON, read: the compiled reader (beta-json-compiled: members in declared order, no escapes,
 *   numbers that fit their slot) → JSON.parse and a check (beta-json-reader, readBetaJsonParsed: what
 *   JSON.parse reads and the descriptor check accepts) → the exact reader (beta-json-reader, Reader).
 * - alpha JSON, read: the compiled reader (alpha-json-compiled: element fields in order, lists,
 *   scalars, dates as XStream writes plain data) → the direct reader (alpha-json-direct: the same
 *   shapes in any order) → the JSON tree and element tree (alpha-json, readAlphaJsonTree).
 * - alpha JSON, write: the direct writer (alpha-json-direct: those shapes, no shared references) →
 *   the element tree (alpha-node, renderAlphaJson).
 * - beta XML and alpha XML: one reader and one writer each.
 *
 * Anything else a fast tier throws is a bug and propagates: it fails a test instead of falling back.
 */
export const STAND_ASIDE: unique symbol = Symbol('stand aside')
export type StandAside = typeof STAND_ASIDE

/**
 * Whether a fast tier's error hands the input on: STAND_ASIDE, or the client's input refused by a
 * scanner or converter the tier shares with the last tier (a syntax error, a value that does not fit,
 * a limit passed), which the last tier then words with its path.
 */
export function standsAside(err: unknown): boolean {
  return err === STAND_ASIDE || err instanceof ValueError || err instanceof SyntaxErrorAt
}
