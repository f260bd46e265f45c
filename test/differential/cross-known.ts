// Differences between the two runtimes that the cross-runtime test (test/integration/contract/cross-runtime.test.ts)
// found and that no departure (departures.ts) explains: open bugs, of our serializers or of the Java host,
// and differences the runtimes' designs make. Each entry claims exactly the cases its evidence shows and
// is counted on every run; a difference outside these and DEPARTURES fails. An `open` entry is work to
// do: once fixed, delete it (the run then shows whether anything else was hiding behind it).
import type { Descriptor, ObjectDescriptor } from '../../src/microservice/descriptors/descriptors'
import type { Setup } from '../helpers/oracle'
import type { HttpAnswer } from '../helpers/java/cross-runtime'
import { argumentMessage } from '../helpers/java/cross-runtime'
import type { Outcome } from './outcomes'
import type { Universe } from './universe'

/** A difference as the cross-runtime test sees it: both answers, and what each library alone answers. */
export interface Seen {
  readonly setup: Setup
  readonly kind: 'own' | 'notation' | 'foreign' | 'truncated'
  readonly descriptor: Descriptor
  readonly universe: Universe
  /** The argument both microservices were given (the body, without a leading BOM). */
  readonly input: string
  readonly java: HttpAnswer
  readonly js: HttpAnswer
  /** Our serializer alone: what it reads from the input, and writes of that. */
  readonly oursRead: Outcome
  readonly oursWritten: Outcome | undefined
  /** The Java library alone (the oracle: every class of the universe compiled, all annotations processed). */
  readonly javaRead: Outcome
  readonly javaWritten: Outcome | undefined
  /** Whether the JavaScript microservice answered as our serializer alone does, and the Java host as the library. */
  readonly jsIsOurs: boolean
  readonly javaIsJava: boolean
  /** What our serializer reads from another text, as this case's type. */
  readOurs(text: string): Outcome
}

export interface Known {
  readonly id: string
  /** open-ts: our serializers; open-host: the Java host; design: the runtimes differ by design. */
  readonly kind: 'open-ts' | 'open-host' | 'design'
  readonly why: string
  applies(s: Seen): boolean
}

const body = (a: HttpAnswer): string => a.body.toString('utf8')

/**
 * The class an alpha name stands for: its alias, its name, or its name as XStream's XML writes it ($ as _-);
 * an array of it (`c3-array`) stands for the class.
 */
function classNamed(u: Universe, alphaName: string): ObjectDescriptor | undefined {
  const name = alphaName.replace(/(-array)+$/, '')
  return [...u.classes.values()].find(
    (c) => c.alias === name || c.className === name || c.className.replace(/\$/g, '_-') === name
  )
}

function isSubclass(u: Universe, sub: string, of: string): boolean {
  for (let p = u.parents.get(sub); p !== undefined; p = u.parents.get(p.className)) if (p.className === of) return true
  return false
}

/** Whether a text of beta XML has an element holding text that is not only XML's whitespace. */
const TEXT_IN_ELEMENT = /<[^\s/!?<>][^<>]*[^/<>]>[ \t\r\n]*[^< \t\r\n]|<[^\s/!?<>]>[ \t\r\n]*[^< \t\r\n]/

export const KNOWN: readonly Known[] = [
  {
    id: 'host-type-arguments-unchecked',
    kind: 'design',
    why:
      'XStream reads by the names in the document, not by the parameter type, and the Java host checks only ' +
      "the argument's class (Invoker: want.isInstance(v)), as Method.invoke does: a List<Boolean> parameter " +
      'takes a list of lists, a Map<String,C[]> one a map of another class, and the method gets (and the echo ' +
      'returns) a value its declared type cannot hold. That is what XStream gives a Java method; the JavaScript ' +
      'runtime checks the whole value against its descriptor and refuses it (400 BAD_ARGUMENT at the item). ' +
      'Evidence: our reader refuses the very text the Java host answered, as the declared type.',
    applies: (s) =>
      s.setup.startsWith('alpha') &&
      s.jsIsOurs &&
      s.java.code === undefined &&
      s.js.code === 'BAD_ARGUMENT' &&
      /^at \/[^:]*[^/]: /.test(argumentMessage(s.js.detail ?? '')) &&
      s.readOurs(body(s.java)).error !== undefined
  },
  {
    id: 'design-subclass-instance',
    kind: 'design',
    why:
      'Descriptors are closed: a t.object is that class, never a subclass. Java takes an instance of a ' +
      'subclass where its superclass is declared (XStream builds the class the document names, and the echo ' +
      'writes it back by its runtime class); the JavaScript microservice refuses it.',
    applies: (s) => {
      if (!s.setup.startsWith('alpha') || s.java.code !== undefined || s.js.code !== 'BAD_ARGUMENT' || !s.jsIsOurs)
        return false
      const m = /expected <[^>]*> \(([^()]*)\), got <([^>]*)>$/.exec(s.js.detail ?? '')
      const got = m === null ? undefined : classNamed(s.universe, m[2]!)
      return m !== null && got !== undefined && isSubclass(s.universe, got.className, m[1]!)
    }
  },
  {
    id: 'design-object-slot-classes',
    kind: 'design',
    why:
      "A descriptor's Object slot lists the classes it may hold (t.Object([...])); a Java Object field has no " +
      "such list, and the host's default XStreams allow every class of the package (docs/java.md). A document " +
      'naming a class of the package the slot does not list is read by Java and refused by the JavaScript ' +
      'microservice (400).',
    applies: (s) => {
      if (!s.setup.startsWith('alpha') || s.java.code !== undefined || s.js.code !== 'BAD_ARGUMENT' || !s.jsIsOurs)
        return false
      const m = /(?:type <([^>]*)> is not allowed here|class '([^']*)' is not allowed for Object)$/.exec(
        s.js.detail ?? ''
      )
      return m !== null && classNamed(s.universe, m[1] ?? m[2]!) !== undefined
    }
  },
  {
    id: 'ts-beta-map-is-linked-hash-map',
    kind: 'open-ts',
    why:
      'Jackson reads a parameter declared java.util.Map as a LinkedHashMap (its default for the interface), ' +
      'so a Java method that returns it is written <LinkedHashMap> in beta XML. Our beta readers give a Map ' +
      'that our writers then name by the declared class, HashMap: the echo answers <HashMap>.',
    applies: (s) =>
      s.setup === 'betaXml' &&
      s.java.code === undefined &&
      s.js.code === undefined &&
      s.jsIsOurs &&
      s.descriptor.kind === 'map' &&
      s.descriptor.className === 'java.util.Map' &&
      body(s.js)
        .replace(/^<HashMap(\/?>)/, '<LinkedHashMap$1')
        .replace(/<\/HashMap>$/, '</LinkedHashMap>') === body(s.java)
  },
  {
    id: 'ts-beta-xml-text-where-container',
    kind: 'open-ts',
    why:
      'Beta XML: an element with text (not only whitespace) read where an object, a map or a collection is ' +
      'expected. Jackson reads a root element\'s text as the member named "" (a root object refuses it: ' +
      'Unrecognized field ""; a root map holds it under the key "", as its value type reads the text: ' +
      '<Integer>5</Integer> as a Map<String,Integer> is {"": 5}; a root collection refuses it: text in Array ' +
      'context, or from Object value), and an inner element of only text as a String (an object, map or array ' +
      'there: no String-argument constructor). Our reader drops the text and reads an empty object, map or ' +
      'collection.',
    applies: (s) => {
      // Ours read a value (which our writer may then refuse: a char field's default, NUL, in XML).
      if (s.setup !== 'betaXml' || !s.jsIsOurs || !s.javaIsJava || s.oursRead.value === undefined) return false
      if (!TEXT_IN_ELEMENT.test(s.input)) return false
      // Java read the text as the map entry "" (ours has no such entry: the bodies differ).
      if (s.java.code === undefined) return s.descriptor.kind === 'map' && /^<[^<>]+><>/.test(body(s.java))
      return (
        s.java.code === 'BAD_ARGUMENT' &&
        (/^(Unrecognized field "" \(class |Cannot construct instance of `[^`]*`( \(although at least one Creator exists\))?: no String-argument constructor\/factory method to deserialize from String value|Unexpected non-whitespace text \('[^]*' in Array context|Cannot deserialize value of type `[^`]*` from Object value \(token `JsonToken\.FIELD_NAME`\))/.test(
          argumentMessage(s.java.detail ?? '')
        ) ||
          // The root map's "" entry refused by its value type.
          (s.descriptor.kind === 'map' && /\(through reference chain: [^()]*\[""\]\)$/.test(s.javaRead.message ?? '')))
      )
    }
  },
  {
    id: 'ts-beta-xml-scalar-from-element-with-children',
    kind: 'open-ts',
    why:
      'Beta XML: a scalar (or a Date) read from an element that has child elements. Jackson skips the ' +
      "children and takes the element's own text, its last piece (XmlDeserializationContext." +
      'extractScalarFromObject): <i>7<x>5</x></i> is 7 as an Integer, <s>a<x/>b</s> "b" as a String, and with ' +
      'no text <b><x>1</x></b> is a null Boolean, a NUL char (which its XML writer then refuses: 500), "" as a ' +
      'String, the epoch as a Date. Our reader refuses the element ("expected Boolean, got an element with ' +
      'children") or reads the Date as null.',
    applies: (s) => {
      if (s.setup !== 'betaXml' || !s.jsIsOurs || !s.javaIsJava || s.javaRead.value === undefined) return false
      if (/got an element with children$/.test(s.oursRead.message ?? '')) return true
      // A root Date: the epoch in Java, null in ours, from an element with children.
      return (
        s.descriptor.kind === 'date' &&
        s.oursRead.value === null &&
        s.javaRead.value === 0 &&
        /^<[^<>]+>\s*<[^/]/.test(s.input)
      )
    }
  }
]
