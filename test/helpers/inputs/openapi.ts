// Checks on generated descriptions: a real OpenAPI 3.1 validator (@seriousme/openapi-schema-validator,
// which holds a document to the official 3.1 JSON schema) and a JSON Schema 2020-12 validator (ajv)
// for answers against a document's response schemas.
import Ajv2020 from 'ajv/dist/2020'
import type { Validator as ValidatorClass } from '@seriousme/openapi-schema-validator' with {
  'resolution-mode': 'import'
}

/** The validator's messages for `doc`; empty when it is a valid OpenAPI 3.1 document. */
export async function openApiErrors(doc: object): Promise<string[]> {
  const { Validator } = (await import('@seriousme/openapi-schema-validator')) as { Validator: typeof ValidatorClass }
  const v = new Validator()
  const r = await v.validate(doc as Record<string, unknown>)
  if (r.valid) return []
  if (typeof r.errors === 'string') return [r.errors]
  return (r.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''} ${JSON.stringify(e.params)}`)
}

/** Validates a value against a schema of the document (`#/paths/...` or `#/components/...` pointer). */
export function schemaChecker(doc: object): (pointer: string, value: unknown) => string[] {
  // OpenAPI's own keywords (xml, example) and formats (int32, int64, double) are annotations here.
  const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true })
  ajv.addSchema(doc, 'doc')
  return (pointer, value) => {
    const validate = ajv.compile({ $ref: `doc${pointer}` })
    return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''}`)
  }
}

/** JSON pointer escaping of a path key: '/calculator/multiply' → '~1calculator~1multiply'. */
export function pointerKey(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1')
}

type Node = { [k: string]: unknown }

/**
 * `value` written as XML the way OpenAPI's `xml` object says (and Swagger UI renders a sample): the
 * element named by `xml.name`, else by the property or the component; `attribute`; a collection's
 * items inside its element when `wrapped`, else repeated under the items' name. A nullable schema
 * (`anyOf` with null, or a type list) is written as its other branch; a null is left out.
 */
export function renderXml(doc: object, pointer: string, value: unknown): string {
  const resolve = (s: Node): { schema: Node; name?: string } => {
    let name: string | undefined
    while (typeof s.$ref === 'string') {
      const own = s.xml as Node | undefined
      const parts = s.$ref
        .slice(2)
        .split('/')
        .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
      name ??= (own?.name as string | undefined) ?? parts.at(-1)
      s = parts.reduce<Node>((n, p) => n[p] as Node, doc as Node)
    }
    if (Array.isArray(s.anyOf)) {
      const other = (s.anyOf as Node[]).find((b) => b.type !== 'null')!
      const r = resolve(other)
      return { schema: r.schema, name: ((s.xml as Node | undefined)?.name as string | undefined) ?? name ?? r.name }
    }
    return { schema: s, name }
  }
  const element = (s0: Node, fallback: string, v: unknown): string => {
    if (v === null || v === undefined) return ''
    const { schema: s, name: refName } = resolve(s0)
    const xml = (s0.xml ?? s.xml ?? {}) as Node
    const name =
      ((s0.xml as Node | undefined)?.name as string | undefined) ??
      (xml.name as string | undefined) ??
      refName ??
      fallback
    const types = Array.isArray(s.type) ? s.type : [s.type]
    if (types.includes('array')) {
      const items = s.items as Node
      const inner = (v as unknown[]).map((x) => element(items, name, x)).join('')
      return xml.wrapped === true ? `<${name}>${inner}</${name}>` : inner
    }
    if (types.includes('object') && typeof v === 'object') {
      const props = (s.properties ?? {}) as Record<string, Node>
      let attrs = ''
      let body = ''
      for (const [k, p] of Object.entries(props)) {
        const pv = (v as Record<string, unknown>)[k]
        if (pv === null || pv === undefined) continue
        const px = (p.xml ?? {}) as Node
        if (px.attribute === true) attrs += ` ${(px.name as string | undefined) ?? k}="${String(pv)}"`
        else body += element(p, k, pv)
      }
      return `<${name}${attrs}>${body}</${name}>`
    }
    return `<${name}>${String(v)}</${name}>`
  }
  const root = (
    pointer
      .slice(2)
      .split('/')
      .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~')) as string[]
  ).reduce<Node>((n, p) => n[p] as Node, doc as Node)
  return element(root, 'root', value)
}
