// A found case against an answer of Java's: the recorded one (found-cases.test.ts) or a live one.
import { join } from 'node:path'
import type { Descriptor } from '../../src/microservice/descriptors/descriptors'
import { toWire, specOf, type Request, type Setup, type Wire } from '../helpers/oracle'
import { DECODER, agree, ours, serializerFor, type Outcome } from './outcomes'
import { DEPARTURES, type Checked } from './departures'
import { descriptorFromJson, fromWire, type DescriptorJson } from './descriptor-json'
import { ROOT } from '../helpers/root'

// The recording stays in the source tree, whether the tests run compiled (dist/test) or from their sources.
export const FOUND_FILE = join(ROOT, 'test', 'differential', 'found-cases.json')

/** A case as found-cases.json keeps it. */
export interface RecordedCase {
  found: string
  setup: Setup
  type: DescriptorJson
  value?: Wire
  text?: string
  java: Outcome
}

/** What the oracle is asked for this case. */
export function requestFor(c: RecordedCase): Request {
  const type = specOf(descriptorFromJson(c.type))
  return c.text !== undefined
    ? { op: 'read', setup: c.setup, type, text: c.text }
    : { op: 'write', setup: c.setup, type, value: c.value ?? null }
}

/** Our answer to the case. */
export function ourOutcome(c: RecordedCase): { d: Descriptor; outcome: Outcome } {
  const d = descriptorFromJson(c.type)
  const s = serializerFor(c.setup, new Map())
  if (c.text !== undefined) {
    const text = c.text
    return {
      d,
      outcome: ours(
        () => s.deserialize(Buffer.from(text, 'utf8'), d),
        (v) => ({ value: toWire(v, d) })
      )
    }
  }
  const value = fromWire(c.value ?? null, d)
  return {
    d,
    outcome: ours(
      () => s.serialize(value, d),
      (b) => ({ text: typeof b === 'string' ? b : DECODER.decode(b) })
    )
  }
}

/** A comparison as the departures read it, for one case of a setup's serializer (our side re-read on demand). */
export function checkedCase(
  setup: Setup,
  direction: Checked['direction'],
  kind: string,
  d: Descriptor,
  input: string | null,
  java: Outcome,
  outcome: Outcome,
  value: Wire = null
): Checked {
  const s = serializerFor(setup, new Map())
  const read = (text: string): Outcome =>
    ours(
      () => s.deserialize(Buffer.from(text, 'utf8'), d),
      (v) => ({ value: toWire(v, d) })
    )
  return {
    setup,
    direction,
    kind,
    descriptor: d,
    value,
    input,
    java,
    ours: outcome,
    agrees: (x) => agree(outcome, x, d),
    readOurs: read,
    agreeing: (a, b) => agree(a, b, d)
  }
}

/** Null when ours agrees with Java's answer or a departure explains the difference (as the fidelity run has it). */
export function disagreement(c: RecordedCase, java: Outcome): string | null {
  const { d, outcome } = ourOutcome(c)
  if (agree(outcome, java, d)) return null
  const direction = c.text === undefined ? 'write' : 'read'
  const checked = checkedCase(c.setup, direction, c.found, d, c.text ?? null, java, outcome, c.value ?? null)
  if (outcome.crash !== true && DEPARTURES.some((x) => x.applies(checked))) return null
  return `${c.found}: Java ${JSON.stringify(java)}, ours ${JSON.stringify(outcome)}`
}
