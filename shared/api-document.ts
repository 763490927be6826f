// Reading the hub's OpenAPI document for the /hub/api page: operations grouped by tag and
// filtered by a search, and a JSON Schema told in a few words (type, constraints) for the
// parameter and field rows. Framework-free.
import type { OpenApiDocument, OpenApiOperation } from '#server/core/openapi'

type Json = Record<string, unknown>

export interface ApiOperationEntry { method: string, path: string, operation: OpenApiOperation }
export interface ApiTagGroup { tag: string, operations: ApiOperationEntry[] }
export interface SchemaField { name: string, type: string, required: boolean, notes: string }

const METHOD_ORDER = ['get', 'post', 'put', 'patch', 'delete']

/** The operations whose method, path, summary, operationId or role contain every word of `search`, by tag. */
export function groupOperations(document: OpenApiDocument, search: string, tag?: string): ApiTagGroup[] {
  const words = search.toLowerCase().split(/\s+/).filter(Boolean)
  const groups = new Map<string, ApiOperationEntry[]>()
  for (const [path, operations] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const name = operation.tags[0] ?? 'api'
      if (tag && name !== tag) continue
      const text = `${method} ${path} ${operation.summary} ${operation.operationId} ${operation['x-required-role']}`.toLowerCase()
      if (!words.every(word => text.includes(word))) continue
      groups.set(name, [...(groups.get(name) ?? []), { method, path, operation }])
    }
  }
  return [...groups.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([name, entries]) => ({
    tag: name,
    operations: entries.sort((a, b) => a.path.localeCompare(b.path) || METHOD_ORDER.indexOf(a.method) - METHOD_ORDER.indexOf(b.method)),
  }))
}

/** `string`, `integer`, `"a" | "b"`, `string[]`, `string | null`… */
export function schemaTypeText(schema: Json | undefined): string {
  if (!schema) return 'any'
  if (Array.isArray(schema.enum)) return schema.enum.map(value => JSON.stringify(value)).join(' | ')
  if ('const' in schema) return JSON.stringify(schema.const)
  const union = (schema.anyOf ?? schema.oneOf) as Json[] | undefined
  if (Array.isArray(union)) return union.map(part => schemaTypeText(part)).join(' | ')
  if (schema.type === 'array') return `${schemaTypeText(schema.items as Json | undefined)}[]`
  if (Array.isArray(schema.type)) return schema.type.join(' | ')
  if (typeof schema.type === 'string') return schema.format ? `${schema.type} (${String(schema.format)})` : schema.type
  return 'any'
}

/** Bounds, pattern and default in a few words. */
export function schemaNotes(schema: Json | undefined): string {
  if (!schema) return ''
  const notes: string[] = []
  const inner = ((schema.anyOf ?? schema.oneOf) as Json[] | undefined)?.find(part => part.type !== 'null') ?? schema
  for (const [key, label] of [['minLength', 'min length'], ['maxLength', 'max length'], ['minimum', 'min'], ['maximum', 'max'], ['minItems', 'min items'], ['maxItems', 'max items']] as const) {
    if (typeof inner[key] === 'number') notes.push(`${label} ${inner[key]}`)
  }
  if (typeof inner.pattern === 'string' && !inner.format) notes.push(`pattern ${inner.pattern}`)
  if ('default' in schema) notes.push(`default ${JSON.stringify(schema.default)}`)
  if (typeof schema.description === 'string') notes.push(schema.description)
  return notes.join(' · ')
}

/** An object schema's fields (a union's branches, each with its own fields, are left to the raw view). */
export function schemaFields(schema: Json | undefined): SchemaField[] {
  const properties = schema?.properties as Record<string, Json> | undefined
  if (!properties) return []
  const required = new Set((schema?.required ?? []) as string[])
  return Object.entries(properties).map(([name, field]) => ({
    name,
    type: schemaTypeText(field),
    required: required.has(name),
    notes: schemaNotes(field),
  }))
}
