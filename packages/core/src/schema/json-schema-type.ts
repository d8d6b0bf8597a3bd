/**
 * The TypeScript type of the values a JSON Schema literal accepts, so that `defineTool` can type a
 * tool's arguments from the very schema that validates them. Written for a schema declared in
 * place (or `as const`); what it reads:
 *
 * - `const` and `enum`: the literal values;
 * - `type` (one name or a list): `string`, `number`/`integer` → `number`, `boolean`, `null`,
 *   `array` (of its `items` schema), `object`;
 * - `properties` + `required`: the required properties, and the others as optional ones (extra
 *   properties a schema admits are not typed: read them as `unknown` if you must);
 *   an object without `properties` is `Record<string, T>` for `additionalProperties: <schema of
 *   T>`, else `Record<string, unknown>`;
 * - `anyOf` / `oneOf`: the union of the branches.
 *
 * Anything else (`$ref`, `allOf`, `not`, `if`/`then`/`else`, `prefixItems`, `patternProperties`, a
 * schema without `type`) is `unknown`: never `any`, so the tool must check before it relies on it.
 * A schema that is not a literal (built at run time as a `JSONSchema`) is `unknown` too.
 */

/** The type of the values `Schema` accepts (see the module comment for what is read). */
export type JSONSchemaType<Schema> = Schema extends { readonly const: infer Value }
  ? Value
  : Schema extends { readonly enum: readonly (infer Member)[] }
    ? Member
    : Schema extends { readonly anyOf: readonly (infer Branch)[] }
      ? JSONSchemaType<Branch>
      : Schema extends { readonly oneOf: readonly (infer Branch)[] }
        ? JSONSchemaType<Branch>
        : Schema extends { readonly type: infer Name }
          ? TypeOfNames<Name extends readonly (infer Each)[] ? Each : Name, Schema>
          : unknown;

/** One `type` name (distributed over a list of them). */
type TypeOfNames<Name, Schema> = Name extends "string"
  ? string
  : Name extends "number" | "integer"
    ? number
    : Name extends "boolean"
      ? boolean
      : Name extends "null"
        ? null
        : Name extends "array"
          ? ArrayType<Schema>
          : Name extends "object"
            ? ObjectType<Schema>
            : unknown;

type ArrayType<Schema> = Schema extends { readonly items: infer Items }
  ? Items extends readonly unknown[] | boolean
    ? unknown[]
    : JSONSchemaType<Items>[]
  : unknown[];

type ObjectType<Schema> = Schema extends { readonly properties: infer Properties }
  ? string extends keyof Properties
    ? Record<string, unknown>
    : Flatten<PropertiesType<Properties, RequiredNames<Schema> & keyof Properties>>
  : Schema extends { readonly additionalProperties: infer Additional }
    ? Additional extends boolean
      ? Record<string, unknown>
      : Record<string, JSONSchemaType<Additional>>
    : Record<string, unknown>;

type RequiredNames<Schema> = Schema extends { readonly required: readonly (infer Name)[] } ? Name : never;

type PropertiesType<Properties, Required extends keyof Properties> = {
  -readonly [Name in Required]: JSONSchemaType<Properties[Name]>;
} & {
  -readonly [Name in Exclude<keyof Properties, Required>]?: JSONSchemaType<Properties[Name]>;
};

/** One object type instead of an intersection, so editors show `{ city: string; days?: number }`. */
type Flatten<Value> = { [Key in keyof Value]: Value[Key] };
