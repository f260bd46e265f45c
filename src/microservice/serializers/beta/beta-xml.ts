import {
  type ArrayDescriptor,
  type Descriptor,
  type ListDescriptor,
  boxed,
  isNullable,
  simpleName,
  typeName,
  javaClassName,
  plain,
  Typed
} from '../../descriptors/descriptors'
import { parseXmlPrefix, type XmlElement, type XmlPrefix } from '../../../common/xml/tree'
import type { Serializer } from '../serializer'
import { requireJavaZone, type JavaZone } from '../java/zones'
import { DEFAULT_READ_LIMITS, type ReadLimits } from '../../../common/contract/limits'
import { ValueError, rethrowAt } from '../errors'
import {
  charArrayText,
  isCharArray,
  javaMapEntries,
  kindOf,
  parseScalar,
  primitiveDefault,
  scalarText,
  splitChars
} from '../java/text'
import { parseJacksonDate } from '../java/dates'
import { jacksonInteger, javaTrim } from '../java/integers'
import { LOCAL_DATE_UNSUPPORTED, elementType, jacksonRuntimeType } from './beta-types'
import { escapeWoodstoxChars, escapeWoodstoxText } from './woodstox-text'

const ALL_WS = /^[\t\n\r ]*$/

/**
 * The root element XmlMapper writes: the runtime class's simple name; arrays are the component's plus
 * 's', and an array of a primitive keeps the primitive's name (int[] is <ints>, Integer[] <Integers>).
 */
export function betaRootName(d: Descriptor): string {
  if (d.kind === 'array') {
    // An array of arrays is named after its innermost component (boolean[][] is <booleans>).
    let item = d.item
    while (item.kind === 'array') item = item.item
    if (item.kind === 'scalar' && boxed(item) !== item) return `${item.type}s`
    // The component class is the declared one: Map[] is <Maps>, not the HashMap a Map is written as.
    if (item.kind === 'list' || item.kind === 'map') return `${simpleName(item.className)}s`
    return `${betaRootName(item)}s`
  }
  // Primitives travel boxed: an int is written as <Integer>.
  return simpleName(javaClassName(boxed(d)))
}

/**
 * A key that, written as an element name, would be markup of another document: a tag, a reference, an
 * attribute, a processing instruction or a declaration.
 */
const MARKUP_KEY = /[<>&/="']|^[?!]/

/** A list or array Jackson writes as repeated elements (a char[] is one text instead). */
function isRepeated(d: Descriptor): d is ListDescriptor | ArrayDescriptor {
  return (d.kind === 'list' || d.kind === 'array') && !isCharArray(d)
}

class Writer {
  readonly out: string[] = []

  element(value: unknown, declared: Descriptor, name: string): void {
    const v = plain(value)
    if (v === null || v === undefined) {
      if (!isNullable(declared)) throw new ValueError(`${typeName(declared)} cannot be null`)
      this.out.push(`<${name}/>`)
      return
    }
    const d = jacksonRuntimeType(value, declared)
    switch (d.kind) {
      case 'scalar':
        this.out.push(`<${name}>${escapeWoodstoxText(scalarText(d.type, v))}</${name}>`)
        return
      case 'date':
        if (!(v instanceof Date)) throw new ValueError(`expected a Date, got ${kindOf(v)}`)
        this.out.push(`<${name}>${v.getTime()}</${name}>`)
        return
      case 'localDate':
        throw new ValueError(LOCAL_DATE_UNSUPPORTED)
      case 'object': {
        if (typeof v !== 'object' || Array.isArray(v)) throw new ValueError(`expected ${d.className}, got ${kindOf(v)}`)
        const record = v as Record<string, unknown>
        const before = this.open(name)
        for (const f of d.fields) {
          const fv = Object.prototype.hasOwnProperty.call(record, f.name) ? record[f.name] : null
          const list = isRepeated(f.type)
          // A null List property (a typed null too) is left out; other nulls are written as an empty element.
          const given = plain(fv)
          if ((given === null || given === undefined) && list) continue
          try {
            if (list && !(given instanceof Typed)) this.wrappedList(fv, elementType(f.type), f.name, f.name)
            else this.member(fv, f.type, f.name)
          } catch (err) {
            rethrowAt(err, f.name)
          }
        }
        this.close(name, before)
        return
      }
      case 'list':
      case 'array':
        // A char[] is one text (<chars>ab</chars>), as Jackson writes it.
        if (isCharArray(d)) {
          if (!Array.isArray(v)) throw new ValueError(`expected char[] (an array), got ${kindOf(v)}`)
          this.out.push(`<${name}>${escapeWoodstoxChars(charArrayText(v))}</${name}>`)
          return
        }
        // A List's items (and a Map's values) are objects in Java: <item/> for null, where an int[] has none.
        this.wrappedList(v, elementType(d), name, 'item')
        return
      case 'map': {
        const before = this.open(name)
        const value = elementType(d)
        for (const [k, x] of javaMapEntries(v, d.className)) {
          // Jackson writes a key as the element name unchecked. One Woodstox does not read as a name (empty,
          // a space or a digit first in it) is written so too: its start tag stops every reader there, Jackson's
          // included, which refuses it as ours does. Markup in a key would make another document instead
          // (<a>b>1</a>b> for the key a>b): that one is refused here, where it is written at all (an empty
          // collection is not).
          const at = this.out.length
          try {
            this.member(x, value, k)
          } catch (err) {
            rethrowAt(err, k)
          }
          if (this.out.length > at && MARKUP_KEY.test(k))
            throw new ValueError(`map key '${k.slice(0, 40)}' holds markup, which would change the document`)
        }
        this.close(name, before)
        return
      }
      case 'any':
      case 'void':
        throw new ValueError(`cannot write ${typeName(d)}`)
    }
  }

  /**
   * A map value, or a field not declared a collection: a collection it holds at run time (in an
   * Object field or map value) is written unwrapped, each item an element of the member's name, and
   * an empty one not at all (<o>1</o><o>2</o>, as XmlMapper writes an Object field holding [1, 2]).
   */
  private member(value: unknown, declared: Descriptor, name: string): void {
    const inner = plain(value)
    const r = Array.isArray(inner) ? jacksonRuntimeType(value, declared) : null
    if (r !== null && isRepeated(r)) this.items(inner as unknown[], elementType(r), name)
    else this.element(value, declared, name)
  }

  private wrappedList(value: unknown, item: Descriptor, wrapper: string, itemName: string): void {
    const v = plain(value)
    if (!Array.isArray(v)) throw new ValueError(`expected a list, got ${kindOf(v)}`)
    const before = this.open(wrapper)
    this.items(v, item, itemName)
    this.close(wrapper, before)
  }

  /** Opens an element; returns where its content starts, for close. */
  private open(name: string): number {
    this.out.push(`<${name}>`)
    return this.out.length
  }

  /**
   * Closes the element open since `before`. With nothing written inside (no fields, no entries, only
   * empty collections, which Jackson leaves out), it is written empty instead: <name/>.
   */
  private close(name: string, before: number): void {
    if (this.out.length === before) this.out[before - 1] = `<${name}/>`
    else this.out.push(`</${name}>`)
  }

  /** Jackson's XML module unwraps a list inside a list: its items join the outer list's items. */
  private items(values: unknown[], item: Descriptor, itemName: string): void {
    for (let k = 0; k < values.length; k++) {
      const x = values[k]
      const inner = plain(x)
      try {
        if (Array.isArray(inner) && !isCharArray(item)) {
          const r = jacksonRuntimeType(x, item)
          this.items(inner, isRepeated(r) ? elementType(r) : item, itemName)
        } else {
          this.element(x, item, itemName)
        }
      } catch (err) {
        rethrowAt(err, k)
      }
    }
  }
}

/** One reading: the zone of its dates, and what its parser read before a syntax fault. */
interface Reading {
  readonly zone: JavaZone
  readonly prefix: XmlPrefix
}

/**
 * Jackson binds as Woodstox reads: a value that does not bind is refused before a syntax fault further
 * on is met. Where the binding needs what an element had still to give (its text, or the end of its
 * children), the fault is what Java meets first.
 */
function whole(el: XmlElement, r: Reading): void {
  if (r.prefix.fault !== null && r.prefix.open.has(el)) throw r.prefix.fault
}

/**
 * Jackson's token stream reads on past a start tag to the next tag before it names the element (a
 * field or an item): a fault in that text, or in the next start tag, comes before any judgement of
 * the element, its name included.
 */
function begun(el: XmlElement, r: Reading): void {
  if (el.children.length === 0) whole(el, r)
}

/**
 * Before refusing a value Jackson would misread rather than refuse (a nested collection): Jackson reads
 * on through its misreading, so a syntax fault anywhere before the root's end comes first. (Where its
 * misreading fails on the way, Java names that value; a departure of the differential tests.)
 */
function misread(r: Reading): void {
  if (r.prefix.fault !== null && r.prefix.open.size > 0) throw r.prefix.fault
}

/**
 * `position`: at the root and in a collection item, Jackson's XML parser drops text
 * of only whitespace (references included: &#xd;), so a Character there reads as null (char as NUL);
 * a field keeps it.
 */
function read(el: XmlElement, d: Descriptor, r: Reading, position: 'root' | 'item' | 'field' = 'field'): unknown {
  begun(el, r)
  const blankDropped = position !== 'field'
  switch (d.kind) {
    case 'scalar': {
      if (el.children.length > 0) throw new ValueError(`expected ${d.type}, got an element with children`)
      if (d.type === 'Character' || d.type === 'char')
        return parseScalar(d.type, blankDropped && ALL_WS.test(el.text) ? '' : el.text)
      if (d.type === 'String') return parseScalar(d.type, el.text)
      const text = javaTrim(el.text)
      if (text === '') return isNullable(d) ? null : primitiveDefault(d)
      // Jackson reads XML text as it coerces strings: Integer.parseInt / Long.parseLong after trim.
      if (d.type === 'int' || d.type === 'Integer') return jacksonInteger(text, 'int')
      if (d.type === 'long' || d.type === 'Long') return jacksonInteger(text, 'long')
      return parseScalar(d.type, text)
    }
    case 'date': {
      // Jackson XML reads an empty Date element (how a null Date field is written) as the epoch, and
      // any other element's text as Jackson reads a JSON string.
      whole(el, r)
      if (el.text.trim() === '' && el.children.length === 0) return new Date(0)
      return parseJacksonDate(el.text, r.zone)
    }
    case 'localDate':
      throw new ValueError(LOCAL_DATE_UNSUPPORTED)
    case 'object': {
      // Like Jackson, an empty element (<inner/>, which is how a null object field is written)
      // reads as an object whose fields keep their defaults.
      const out: Record<string, unknown> = {}
      for (const f of d.fields) out[f.name] = primitiveDefault(f.type)
      // Jackson's XML module binds attributes like elements.
      const members: Array<[string, XmlElement]> = el.attributes.map(([n, v]) => [
        n,
        { name: n, attributes: [], children: [], text: v }
      ])
      for (const c of el.children) members.push([c.name, c])
      for (const [name, child] of members) {
        begun(child, r)
        const field = d.fields.find((f) => f.name === name)
        if (field === undefined) {
          const known = d.fields.map((f) => `"${f.name}"`).join(', ')
          throw new ValueError(
            `Unrecognized field "${name}" (class ${d.className}), not marked as ignorable (${d.fields.length} known properties: ${known}])`
          )
        }
        try {
          out[field.name] = read(child, field.type, r)
        } catch (err) {
          rethrowAt(err, field.name)
        }
      }
      whole(el, r)
      return out
    }
    case 'list':
    case 'array': {
      // A char[] field is its text; a root one too, but Jackson cannot read that back (only <item>s).
      if (isCharArray(d) && el.children.length === 0) {
        // An item that is a char[] must have text (Jackson fails on an empty one).
        if (position === 'item' && ALL_WS.test(el.text))
          throw new ValueError('Cannot deserialize char[] from an empty element in a collection')
        if (position !== 'root') return splitChars(el.text)
        if (!ALL_WS.test(el.text))
          throw new ValueError(`Unexpected non-whitespace text ('${el.text.slice(0, 40)}' in Array context)`)
        return []
      }
      // Root lists hold <item> elements; a List property wraps items named like the property.
      // A list's items are objects in Java (List<Character>): what reads as null stays null.
      const itemType = elementType(d)
      // Jackson's XML module writes a collection inside a collection flattened and cannot read it back.
      if (isRepeated(itemType) && el.children.length > 0) {
        misread(r)
        throw new ValueError(
          `Cannot deserialize ${typeName(d)}: a collection inside a collection cannot be read from XML`
        )
      }
      // Jackson's String collections take an empty root element as the String "" and refuse it.
      if (
        position === 'root' &&
        el.children.length === 0 &&
        d.item.kind === 'scalar' &&
        d.item.type === 'String' &&
        ALL_WS.test(el.text)
      )
        throw new ValueError(`Cannot deserialize value of type \`${typeName(d)}\` from an empty element`)
      const items = el.children.map((c, k) => {
        try {
          return read(c, itemType, r, 'item')
        } catch (err) {
          return rethrowAt(err, k)
        }
      })
      whole(el, r)
      return items
    }
    case 'map': {
      const valueType = elementType(d)
      if (valueType.kind === 'any') {
        // The element's text decides (below), and untyped reading refuses nothing after it.
        whole(el, r)
        // An element of only text is a String token to Jackson, which no map is built from, but at the root.
        if (position !== 'root' && el.children.length === 0 && el.attributes.length === 0 && !ALL_WS.test(el.text))
          throw new ValueError(
            `Cannot construct instance of \`${javaClassName(d)}\` (although at least one Creator exists): no String-argument constructor/factory method to deserialize from String value ('${el.text.slice(0, 40)}')`
          )
        // Map<String,Object>: Jackson's MapDeserializer squashes a repeated key into a list, as untyped.
        return untypedMembers(el)
      }
      const out = new Map<string, unknown>()
      // Jackson's XML module writes a collection as a map value unwrapped and cannot read it back.
      if (isRepeated(valueType) && el.children.some((c) => c.children.length > 0 || !ALL_WS.test(c.text))) {
        misread(r)
        throw new ValueError(`Cannot deserialize ${typeName(d)}: a collection as a map value cannot be read from XML`)
      }
      for (const c of el.children) {
        try {
          out.set(c.name, read(c, valueType, r))
        } catch (err) {
          rethrowAt(err, c.name)
        }
      }
      whole(el, r)
      return out
    }
    case 'any':
      whole(el, r)
      return readUntyped(el, position)
    case 'void':
      throw new ValueError('void has no value')
  }
}

/**
 * Jackson 2.14's untyped XML (Object, or the items of List<Object>), as the oracle answered it. An
 * element of only text is a String where it is a member (a field or map value: <o/> is "", blanks
 * kept); where Jackson takes it for the start of an object, at the root and as a collection's item,
 * text of only whitespace (or none) is an empty map, and at the root any other text is {"": text}.
 * An element with attributes or child elements is a LinkedHashMap: attributes, then children and
 * the text between them (a segment not only whitespace, under the key ""), in document order, each
 * child read as a member; a name met again turns its value into an ArrayList of every value of that
 * name, where the name first was (UntypedObjectDeserializer's duplicate handling).
 */
function readUntyped(el: XmlElement, position: 'root' | 'item' | 'field'): unknown {
  if (el.children.length === 0 && el.attributes.length === 0) {
    if (position === 'field') return el.text
    if (ALL_WS.test(el.text)) return new Map()
    return position === 'root' ? new Map([['', el.text]]) : el.text
  }
  return untypedMembers(el)
}

/** An element's attributes, children and text as Jackson's untyped map has them (see readUntyped). */
function untypedMembers(el: XmlElement): Map<string, unknown> {
  const out = new Map<string, unknown>()
  const put = (key: string, value: unknown): void => {
    if (!out.has(key)) out.set(key, value)
    else {
      // Values read here are Strings and maps: an array is the list of a repeated name.
      const seen = out.get(key)
      if (Array.isArray(seen)) seen.push(value)
      else out.set(key, [seen, value])
    }
  }
  const text = (t: string): void => {
    if (!ALL_WS.test(t)) put('', t)
  }
  for (const [n, v] of el.attributes) put(n, v)
  // Without children the text is one segment; with them the parser kept the segments (hasObjectSlot).
  const segments = el.children.length === 0 ? [el.text] : (el.segments ?? [el.text])
  for (let k = 0; k < el.children.length; k++) {
    text(segments[k] ?? '')
    const c = el.children[k]!
    put(c.name, readUntyped(c, 'field'))
  }
  text(segments[el.children.length] ?? '')
  return out
}

/** Whether a type can hold an Object slot, whose reading needs the text between elements kept apart. */
const slotted = new WeakMap<Descriptor, boolean>()

function hasObjectSlot(d: Descriptor): boolean {
  let has = slotted.get(d)
  if (has === undefined) {
    switch (d.kind) {
      case 'any':
        has = true
        break
      case 'object':
        // A class that reaches itself (as fastEligible allows for) is asked again while it is being asked.
        slotted.set(d, false)
        has = d.fields.some((f) => hasObjectSlot(f.type))
        break
      case 'list':
      case 'array':
        has = hasObjectSlot(d.item)
        break
      case 'map':
        has = hasObjectSlot(d.value)
        break
      default:
        has = false
    }
    slotted.set(d, has)
  }
  return has
}

export interface BetaXmlOptions {
  /** writer().withRootName(name): the root element's name for every value. */
  rootName?: string
  limits?: ReadLimits
  /** setTimeZone(TimeZone.getTimeZone(id)): the zone of a date written without an offset (UTC by default). */
  timeZone?: string
}

/** beta XML: `new XmlMapper()` with Woodstox: compact XML, root named by the simple class name. */
export function createBetaXmlSerializer(options: BetaXmlOptions = {}): Serializer {
  const zone = requireJavaZone(options.timeZone ?? 'UTC')
  return {
    format: 'xml',
    serialize(value: unknown, type: Descriptor): string {
      const v = plain(value)
      if (v === null || v === undefined) return `<${options.rootName ?? 'null'}/>`
      const w = new Writer()
      w.element(value, type, options.rootName ?? betaRootName(jacksonRuntimeType(value, type)))
      return w.out.join('')
    },
    deserialize(bytes: Uint8Array, type: Descriptor): unknown {
      const prefix = parseXmlPrefix(
        bytes,
        options.limits ?? DEFAULT_READ_LIMITS,
        true,
        ['1.0', '1.1'],
        hasObjectSlot(type)
      )
      const root = prefix.root
      if (root === null) throw prefix.fault!
      const r: Reading = { zone, prefix }
      // The root's name is not read: a top-level null, written <null/>, reads back as the type's empty
      // element does (an object of nulls, "", an empty list), as Jackson reads it.
      // Jackson's XML parser drops whitespace-only text of the root element (XmlTokenStream._allWs):
      // <String> </String> reads as "", while a field keeps its spaces.
      const blankString = type.kind === 'scalar' && type.type === 'String' && root.children.length === 0
      if (blankString) whole(root, r)
      // Jackson stops at the root's end tag: what follows it, a fault included, is never read.
      return blankString && ALL_WS.test(root.text) ? '' : read(root, type, r, 'root')
    }
  }
}
