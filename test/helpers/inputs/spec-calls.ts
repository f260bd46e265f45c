// SPEC's example calls in each sequence's own shapes: how an Integer and an In are written, what an
// Integer and an Out answer, and the four operation kinds of the example's calculator (A-D).

/** How each sequence writes an Integer and an In, and what it answers for an Integer and an Out. */
export interface SequenceShape {
  name: string
  contentType: string
  int(n: number): string
  input(a: number, b: number): string
  outInt(n: number): string
  outObject(n: number): string
  rmc(args: string[]): string
}

const json = (args: string[]): string => `[${args.join(',')}]`
const xml = (args: string[]): string => `<paramArray>${args.join('')}</paramArray>`

export const sequences: SequenceShape[] = [
  {
    name: 'betaParamArrayJsonInOutSequence',
    contentType: 'application/json',
    int: (n) => String(n),
    input: (a, b) => `{"a":${a},"b":${b}}`,
    outInt: (n) => String(n),
    outObject: (n) => `{"result":${n}}`,
    rmc: json
  },
  {
    name: 'alphaParamArrayJsonInOutSequence',
    contentType: 'application/json',
    int: (n) => `{"int":${n}}`,
    input: (a, b) => `{"in":{"a":${a},"b":${b}}}`,
    outInt: (n) => `{"int":${n}}`,
    outObject: (n) => `{"out":{"result":${n}}}`,
    rmc: json
  },
  {
    name: 'alphaParamArrayXmlInOutSequence',
    contentType: 'application/xml',
    int: (n) => `<int>${n}</int>`,
    input: (a, b) => `<in>\n  <a>${a}</a>\n  <b>${b}</b>\n</in>`,
    outInt: (n) => `<int>${n}</int>`,
    outObject: (n) => `<out>\n  <result>${n}</result>\n</out>`,
    rmc: xml
  },
  {
    name: 'betaParamArrayXmlInOutSequence',
    contentType: 'application/xml',
    int: (n) => `<Integer>${n}</Integer>`,
    input: (a, b) => `<In><a>${a}</a><b>${b}</b></In>`,
    outInt: (n) => `<Integer>${n}</Integer>`,
    outObject: (n) => `<Out><result>${n}</result></Out>`,
    rmc: xml
  }
]

export interface Kind {
  kind: string
  method: string
  roa: boolean
  args(s: SequenceShape, a: number, b: number): string[]
  out(s: SequenceShape, n: number): string
}

export const kinds: Kind[] = [
  {
    kind: 'A',
    method: 'multiplyInts',
    roa: false,
    args: (s, a, b) => [s.int(a), s.int(b)],
    out: (s, n) => s.outInt(n)
  },
  { kind: 'B', method: 'multiply', roa: true, args: (s, a, b) => [s.input(a, b)], out: (s, n) => s.outObject(n) },
  { kind: 'C', method: 'multiplyToInt', roa: true, args: (s, a, b) => [s.input(a, b)], out: (s, n) => s.outInt(n) },
  {
    kind: 'D',
    method: 'multiplyIntsToOut',
    roa: false,
    args: (s, a, b) => [s.int(a), s.int(b)],
    out: (s, n) => s.outObject(n)
  }
]
