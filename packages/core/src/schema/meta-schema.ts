/**
 * What a tool's schema must look like to be accepted: the assertion keywords of JSON Schema
 * drafts 4, 7, 2019-09 and 2020-12 with the value types the drafts give them, so a typo such as
 * `"minimum": "3"` or `"required": "path"` is refused when the tool set is built instead of being
 * ignored (or throwing) at the first call. Annotations (title, description, examples...) and
 * unknown keywords pass, as the drafts say they should.
 */
const schema = { $ref: "#" };
const schemaMap = { type: "object", additionalProperties: schema };
const schemaList = { type: "array", items: schema };
const nonEmptySchemaList = { type: "array", items: schema, minItems: 1 };
const count = { type: "integer", minimum: 0 };
const stringList = { type: "array", items: { type: "string" } };
const typeName = { enum: ["string", "number", "integer", "boolean", "object", "array", "null"] };

/** The meta-schema tool schemas are checked against (itself a draft 2020-12 schema). */
export const TOOL_META_SCHEMA: Readonly<Record<string, unknown>> = {
  type: ["object", "boolean"],
  properties: {
    $id: { type: "string" },
    id: { type: "string" },
    $ref: { type: "string" },
    $anchor: { type: "string" },
    $schema: { type: "string" },
    $recursiveRef: { const: "#" },
    $recursiveAnchor: { type: "boolean" },
    // The validator does not implement dynamic scopes: refuse rather than skip them.
    $dynamicRef: false,
    $dynamicAnchor: false,
    $defs: schemaMap,
    definitions: schemaMap,
    type: { anyOf: [typeName, { type: "array", items: typeName, uniqueItems: true }] },
    enum: { type: "array" },
    required: stringList,
    properties: schemaMap,
    patternProperties: { ...schemaMap, propertyNames: { format: "regex" } },
    additionalProperties: schema,
    unevaluatedProperties: schema,
    propertyNames: schema,
    dependentSchemas: schemaMap,
    dependentRequired: { type: "object", additionalProperties: stringList },
    dependencies: { type: "object", additionalProperties: { anyOf: [stringList, schema] } },
    minProperties: count,
    maxProperties: count,
    items: { anyOf: [schema, schemaList] },
    prefixItems: nonEmptySchemaList,
    additionalItems: schema,
    unevaluatedItems: schema,
    contains: schema,
    minContains: count,
    maxContains: count,
    minItems: count,
    maxItems: count,
    uniqueItems: { type: "boolean" },
    allOf: nonEmptySchemaList,
    anyOf: nonEmptySchemaList,
    oneOf: nonEmptySchemaList,
    not: schema,
    if: schema,
    then: schema,
    else: schema,
    minLength: count,
    maxLength: count,
    pattern: { type: "string", format: "regex" },
    format: { type: "string" },
    minimum: { type: "number" },
    maximum: { type: "number" },
    // A number since draft 6; a boolean modifier of minimum/maximum in draft 4.
    exclusiveMinimum: { type: ["number", "boolean"] },
    exclusiveMaximum: { type: ["number", "boolean"] },
    multipleOf: { type: "number", exclusiveMinimum: 0 },
  },
};
