/**
 * The contract sections of a child's prompt (issue 13, ADR 0099), after the persona block so every
 * sibling's earlier sections stay byte for byte the same: `<outputs>` — what cadre checks when the
 * child finishes and how the child names each output — and `<inputs>` — the values the parent
 * passed, which vary per spawn and so come last. Pure text from the effective config.
 */
import type { IoSpec } from "../files/types.ts";
import type { EffectiveConfig, InputCheck } from "../resolve/types.ts";

/** The tool a child with an `output_schema` finishes through. */
export const SUBMIT_RESULT_TOOL = "submit_result";

/** The name of the structured result among the contract's outputs. */
export const STRUCTURED_OUTPUT = "structured";

/** Escapes a value for a double-quoted XML attribute. */
export function attribute(value: string): string {
	return value.replaceAll("&", "&amp;").replaceAll('"', "&quot;").replaceAll("<", "&lt;");
}

/** How a child produces one output: where a file goes, how an answer section is named. */
export function howToProduce(spec: IoSpec): string {
	if (spec.io_type === "file" || spec.io_type === "directory" || spec.path !== null) {
		const what = spec.io_type === "directory" ? "Create the directory" : "Write it to";
		const json = spec.io_type === "json" ? "; it must parse as JSON" : "";
		return `${what} ${spec.path ?? spec.name}, relative to your working directory${json}.`;
	}
	const tag = `<output name="${attribute(spec.name)}">…</output>`;
	if (spec.io_type === "json") return `Put it in your final answer as ${tag}; it must parse as JSON.`;
	if (spec.io_type === "url") return `Put it in your final answer as ${tag}; it must be an absolute URL.`;
	return `Put it in your final answer as ${tag}.`;
}

/**
 * `report (text, required): findings, most severe first. Put it in your final answer as …` — with
 * `problem`, what is wrong with it now before how to produce it (the repair turn's line).
 */
export function outputLine(spec: IoSpec, problem?: string): string {
	const description = spec.description ? `: ${spec.description.replace(/[.\s]+$/, "")}` : "";
	const now = problem ? ` — ${problem}` : "";
	return `${spec.name} (${spec.io_type}${spec.required ? ", required" : ""})${description}${now}. ${howToProduce(spec)}`;
}

export const STRUCTURED_HOW = `Call ${SUBMIT_RESULT_TOOL} with it: its parameters are the result's JSON Schema. When it answers with validation errors, fix them and call it again; a valid call ends your run.`;

/** The `<outputs>` section, or null when the run promises nothing. */
export function outputsBlock(config: Pick<EffectiveConfig, "outputs" | "outputSchema">): string | null {
	const lines = config.outputs.map((spec) => `- ${outputLine(spec)}`);
	if (config.outputSchema !== null) lines.push(`- ${STRUCTURED_OUTPUT} (result, required). ${STRUCTURED_HOW}`);
	if (lines.length === 0) return null;
	return ["<outputs>", "cadre checks these outputs when you finish and tells the parent which are missing.", ...lines, "</outputs>"].join("\n");
}

/** One passed input; a value cannot close its element (`</input` is written `&lt;/input`). */
function inputElement(check: InputCheck): string {
	const type = check.ioType ? ` type="${check.ioType}"` : "";
	const description = check.description ? ` description="${attribute(check.description)}"` : "";
	const value = (check.text ?? "").replace(/<\/input/gi, "&lt;/input");
	return `<input name="${attribute(check.name)}"${type}${description}>${value}</input>`;
}

/** The `<inputs>` section: the inputs passed on (valid and undeclared ones), or null when none. */
export function inputsBlock(config: Pick<EffectiveConfig, "inputs">): string | null {
	const passed = config.inputs.filter((check) => check.status === "ok" || check.status === "undeclared");
	if (passed.length === 0) return null;
	return ["<inputs>", "The parent passed these inputs; paths are relative to your working directory.", ...passed.map(inputElement), "</inputs>"].join("\n");
}
