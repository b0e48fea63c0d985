/**
 * The `submit_result` tool of a child with an `output_schema` (ADR 0098), as a pi tool: ajv checks
 * what the model sent, an invalid call is answered with the errors, a valid value ends the run.
 * The capability guard's extension holds it (capability-guard.ts).
 */

import type { RegisteredTool } from "@earendil-works/pi-coding-agent";
import type { StructuredState } from "../contract.ts";
import { RESULT_TOOL_DESCRIPTION, type ResultTool, SUBMIT_RESULT_TOOL } from "../structured-result.ts";

/** The answer to a submission ajv rejects: each validation error, for the child to fix. */
function invalidResult(errors: string[]): string {
	return `The result is not valid; fix these and call ${SUBMIT_RESULT_TOOL} again:\n${errors.map((error) => `- ${error}`).join("\n")}`;
}

/**
 * The `submit_result` tool of a child with an `output_schema` (ADR 0098). ajv checks the arguments
 * as the model sent them, before pi's own (coercing) check: an invalid call is answered with ajv's
 * errors; a valid value is kept and ends the run (`terminate`).
 */
export function submitResultTool(tool: ResultTool, state: StructuredState, sourcePath: string): RegisteredTool {
	const rejectInvalid = (args: unknown) => {
		const errors = tool.check(tool.unwrap(args));
		if (errors) {
			state.errors = errors;
			throw new Error(invalidResult(errors));
		}
	};
	return {
		definition: {
			name: SUBMIT_RESULT_TOOL,
			label: "Submit result",
			description: RESULT_TOOL_DESCRIPTION,
			parameters: tool.parameters as unknown as RegisteredTool["definition"]["parameters"],
			prepareArguments(args) {
				state.calls++;
				rejectInvalid(args);
				return args as never;
			},
			async execute(_id, params) {
				// What pi handed on after its own check is validated again: only what ajv accepts is kept.
				rejectInvalid(params);
				state.value = structuredClone(tool.unwrap(params));
				state.errors = null;
				return { content: [{ type: "text", text: "Result accepted." }], details: undefined, terminate: true };
			},
		},
		sourceInfo: { path: sourcePath, source: "cadre", scope: "temporary", origin: "top-level" } as RegisteredTool["sourceInfo"],
	};
}
