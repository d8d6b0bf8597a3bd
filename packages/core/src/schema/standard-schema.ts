/**
 * Standard Schema (https://standardschema.dev) as codecall reads it: any schema library whose
 * schemas carry a `~standard` property (zod ≥ 3.24, valibot ≥ 1, ArkType ≥ 2, …) validates through
 * one `validate()`, and the libraries that implement Standard JSON Schema (zod ≥ 4.2 natively,
 * ArkType ≥ 2.1.28 natively, valibot through `toStandardJsonSchema()` of `@valibot/to-json-schema`)
 * also describe their input as JSON Schema. The interfaces below are the parts of both
 * specifications codecall uses, declared here (as the specifications invite) so that core depends
 * on no schema library.
 */
import { CodecallError, errorMessage } from "../errors.js";
import type { JSONSchema } from "./json-schema.js";

/** A Standard Schema (v1): a schema that validates `Input` into `Output`. */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly "~standard": StandardSchemaV1.Props<Input, Output>;
}

// eslint-disable-next-line @typescript-eslint/no-namespace -- the specification's own shape: the interface and its member types under one name
export declare namespace StandardSchemaV1 {
  interface Props<Input = unknown, Output = Input> {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown, options?: { readonly libraryOptions?: Record<string, unknown> }) => Result<Output> | Promise<Result<Output>>;
    readonly types?: { readonly input: Input; readonly output: Output } | undefined;
    /** Present when the library also implements Standard JSON Schema. */
    readonly jsonSchema?: StandardJSONSchemaV1.Converter;
  }
  type Result<Output> = { readonly value: Output; readonly issues?: undefined } | { readonly issues: ReadonlyArray<Issue> };
  interface Issue {
    readonly message: string;
    readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
  }
  /** What the schema accepts (before defaults and transforms). */
  type InferInput<Schema extends StandardSchemaV1> = NonNullable<Schema["~standard"]["types"]>["input"];
  /** What validation produces (after defaults and transforms). */
  type InferOutput<Schema extends StandardSchemaV1> = NonNullable<Schema["~standard"]["types"]>["output"];
}

/** The Standard JSON Schema (v1) converter: a schema that describes itself as JSON Schema. */
// eslint-disable-next-line @typescript-eslint/no-namespace -- as above
export declare namespace StandardJSONSchemaV1 {
  interface Converter {
    readonly input: (options: Options) => Record<string, unknown>;
    readonly output: (options: Options) => Record<string, unknown>;
  }
  interface Options {
    readonly target: "draft-2020-12" | "draft-07" | "openapi-3.0" | (string & {});
    readonly libraryOptions?: Record<string, unknown> | undefined;
  }
}

/** True for a Standard Schema (an object or a function — ArkType's types are callable — with `~standard`). */
export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  if ((typeof value !== "object" && typeof value !== "function") || value === null) return false;
  const props = (value as { "~standard"?: unknown })["~standard"];
  return typeof props === "object" && props !== null && typeof (props as { validate?: unknown }).validate === "function";
}

/**
 * The JSON Schema of what `schema` accepts, for the stub and for codecall's own validation. It is
 * the *input* side: a field with a default is optional (the schema fills it in when `validate`
 * runs), a transformed field is described by what it takes. Throws `INVALID_TOOL` naming `tool`
 * when the library cannot describe the schema as JSON Schema, or the schema is not of an object.
 */
export function standardInputJsonSchema(schema: StandardSchemaV1, tool: string): JSONSchema {
  const props = schema["~standard"];
  const refuse = (why: string, cause?: unknown) => new CodecallError("INVALID_TOOL", `Tool ${tool}: ${why}`, { cause, details: { tool } });
  if (typeof props.jsonSchema?.input !== "function") {
    throw refuse(
      `its parameters are a ${props.vendor} schema that cannot describe itself as JSON Schema (it does not implement Standard JSON Schema). ` +
        "Use a version that does (zod ≥ 4.2; ArkType ≥ 2.1.28; valibot through toStandardJsonSchema() of @valibot/to-json-schema), " +
        "or give parameters as a JSON Schema.",
    );
  }
  let converted: unknown;
  try {
    converted = props.jsonSchema.input({ target: "draft-2020-12" });
  } catch (error) {
    throw refuse(`its ${props.vendor} parameters schema cannot be converted to JSON Schema: ${errorMessage(error)}`, error);
  }
  if (typeof converted !== "object" || converted === null || (converted as JSONSchema).type !== "object") {
    throw refuse(`its ${props.vendor} parameters schema must describe an object (the arguments by name), not ${describeType(converted)}`);
  }
  // As data: zod hides a `~standard` (functions) in the object it returns, which is no keyword.
  return JSON.parse(JSON.stringify(converted)) as JSONSchema;
}

/**
 * Validates `value` with the schema's own `validate` (so defaults and transforms apply) and
 * returns the output. Throws an Error whose message reads `Invalid arguments: 'path' message; …`,
 * which a tool call hands the script as its `ToolError`.
 */
export async function parseWithStandardSchema<Output>(schema: StandardSchemaV1<unknown, Output>, value: unknown): Promise<Output> {
  const result = await schema["~standard"].validate(value);
  if (result.issues) throw new Error(`Invalid arguments: ${describeStandardIssues(result.issues).join("; ")}`);
  return result.value;
}

/** At most this many issues are listed; the model fixes them one call later anyway. */
const MAX_LISTED_ISSUES = 10;

/** Issues as readable lines: `'options.headers[1].name' Expected string` (no path: the message alone). */
export function describeStandardIssues(issues: ReadonlyArray<StandardSchemaV1.Issue>): string[] {
  const lines = issues.slice(0, MAX_LISTED_ISSUES).map((issue) => {
    const path = (issue.path ?? []).reduce<string>((text, segment) => {
      const key = typeof segment === "object" && segment !== null ? segment.key : segment;
      if (typeof key === "number") return `${text}[${key}]`;
      return text === "" ? String(key) : `${text}.${String(key)}`;
    }, "");
    return path === "" ? issue.message : `'${path}' ${issue.message}`;
  });
  if (issues.length > MAX_LISTED_ISSUES) lines.push(`(${issues.length - MAX_LISTED_ISSUES} more)`);
  return lines;
}

function describeType(value: unknown): string {
  if (typeof value !== "object" || value === null) return `a ${typeof value}`;
  const type = (value as JSONSchema).type;
  return type === undefined ? "a schema without a type" : `type ${JSON.stringify(type)}`;
}
