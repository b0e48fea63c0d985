/**
 * The `submit_result` tool's contract (issue 13, ADR 0098): a child with an `output_schema`
 * finishes by calling it with a value the schema accepts. Tool parameters are an object, so a
 * schema of an object is the parameters itself and any other schema is wrapped as
 * `{ result: <schema> }`. pi checks a call's arguments against the parameters first (coercing, for
 * example, "42" to 42); cadre then validates the value with ajv, and only a value ajv accepts
 * becomes the run's `structured` result. Host-neutral: the pi adapter turns it into the tool.
 */
import { compileSchema } from "../core/json-schema.ts";
import { SUBMIT_RESULT_TOOL } from "../prompt/contract-blocks.ts";

export { SUBMIT_RESULT_TOOL };

export interface ResultTool {
	/** The tool's parameters (a JSON Schema of an object). */
	parameters: Record<string, unknown>;
	/** The structured value a call's arguments carry. */
	unwrap(args: unknown): unknown;
	/** Validation errors of a structured value, or null when the schema accepts it. */
	check(value: unknown): string[] | null;
}

export const RESULT_TOOL_DESCRIPTION =
	"Submit your final result. Its parameters are the result's JSON Schema; a valid call ends your run, an invalid one answers with the validation errors to fix.";

/** The tool for `schema` (already checked by the resolver; a schema that does not compile throws). */
export function resultTool(schema: Record<string, unknown>): ResultTool {
	const compiled = compileSchema(schema);
	if (!compiled.ok) throw new Error(`cadre: output_schema is not a usable JSON Schema: ${compiled.message}`);
	const wrapped = schema.type !== "object";
	return {
		parameters: wrapped ? { type: "object", properties: { result: schema }, required: ["result"], additionalProperties: false } : schema,
		unwrap: (args) => (wrapped ? (args as { result?: unknown } | null)?.result : args),
		check: (value) => compiled.schema.check(value),
	};
}
