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
