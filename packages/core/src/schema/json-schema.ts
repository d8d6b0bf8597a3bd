/**
 * A JSON Schema (drafts 4, 7, 2019-09, 2020-12). The keywords codecall itself reads are typed;
 * every other keyword is kept and enforced by the validator all the same.
 */
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
  items?: JSONSchema | boolean | readonly JSONSchema[];
  prefixItems?: readonly JSONSchema[];
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  /** A number; draft 4 spells it as a boolean modifier of `minimum`. */
  exclusiveMinimum?: number | boolean;
  exclusiveMaximum?: number | boolean;
  anyOf?: readonly JSONSchema[];
  oneOf?: readonly JSONSchema[];
  allOf?: readonly JSONSchema[];
  not?: JSONSchema;
  $ref?: string;
  $defs?: Readonly<Record<string, JSONSchema>>;
  [keyword: string]: unknown;
}

/** JSON Schema primitive type names. */
export type JSONSchemaTypeName = "string" | "number" | "integer" | "boolean" | "object" | "array" | "null";
