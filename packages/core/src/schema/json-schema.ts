/** The subset of JSON Schema (draft 2020-12 / draft-07) that codecall reads and validates. */
export interface JSONSchema {
  type?: JSONSchemaTypeName | readonly JSONSchemaTypeName[];
  description?: string;
  title?: string;
  default?: unknown;
  enum?: readonly unknown[];
  const?: unknown;
  properties?: Readonly<Record<string, JSONSchema>>;
  required?: readonly string[];
  additionalProperties?: boolean | JSONSchema;
  items?: JSONSchema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  anyOf?: readonly JSONSchema[];
  oneOf?: readonly JSONSchema[];
  [keyword: string]: unknown;
}

/** JSON Schema primitive type names. */
export type JSONSchemaTypeName = "string" | "number" | "integer" | "boolean" | "object" | "array" | "null";
