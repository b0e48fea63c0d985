/**
 * Keeping a run's contract (issue 13, ADR 0099): when a run ends, each output its persona declares
 * is checked — a `file` / `directory` at its `path` in the child's cwd (its worktree for an
 * isolated run), inside it by real path; a `json` output parses (its file, or its answer section);
 * a `text` / `url` output is a non-empty `<output name="…">` block (or `## name` section) of the
 * final answer — and, with an `output_schema`, whether `submit_result` received a valid value. The
 * repair message names what is missing. Host-neutral; reads the file system only here.
 */
import { resolve as resolvePath } from "node:path";
import type { IoSpec } from "../files/types.ts";
import { isInside, readConfined } from "../files/read-confined.ts";
import { outputLine, STRUCTURED_HOW, STRUCTURED_OUTPUT, SUBMIT_RESULT_TOOL } from "../prompt/contract-blocks.ts";
import { isUrl } from "../resolve/inputs.ts";
import { spawnReader } from "../resolve/spawn-reader.ts";
import type { EffectiveConfig } from "../resolve/types.ts";

/** One declared output after the check; `path` is where a file or directory output was looked for. */
export interface ContractOutput {
	name: string;
	ok: boolean;
	path?: string;
	/** Why it is not ok (missing, outside the cwd, not JSON, …). */
	reason?: string;
}

/** Whether a repair turn was sent and whether the contract then held (null: none was needed). */
export interface ContractRepair {
	steered: boolean;
	worked: boolean;
	/** Why a needed repair turn was not sent (settings, no turns left, the run did not complete), or null. */
	skipped: string | null;
}

/**
 * The contract of a run: `ok` when every required output is there and every output that is there
 * is valid (an optional output that is missing is listed with `ok: false` and does not break it).
 */
export interface Contract {
	ok: boolean;
	outputs: ContractOutput[];
	repair: ContractRepair | null;
}

/** What `submit_result` received: the last valid value, and the last invalid call's errors. */
export interface StructuredState {
	calls: number;
	/** Present once a call was valid. */
	value?: unknown;
	errors: string[] | null;
}

/** What the check reads of a finished run. */
export interface ContractFacts {
	/** The absolute directory the child worked in. */
	cwd: string;
	/** The child's final answer. */
	answer: string | null;
	structured: StructuredState | null;
}

interface Checked extends ContractOutput {
	/** A failure that breaks the contract (a required output, or one that is there but invalid). */
	breaks: boolean;
}

/** Whether the config promises anything the run's end checks. */
export function hasContract(config: Pick<EffectiveConfig, "outputs" | "outputSchema">): boolean {
	return (config.outputs ?? []).length > 0 || (config.outputSchema ?? null) !== null;
}

function checkPath(spec: IoSpec, path: string, cwd: string): Checked {
	const target = resolvePath(cwd, path);
	const missing = { name: spec.name, ok: false, path: target };
	const found = spawnReader.locate(target);
	if (found === null) return { ...missing, reason: `${path} does not exist`, breaks: spec.required };
	const root = spawnReader.locate(cwd)?.realPath ?? cwd;
	if (!isInside(found.realPath, root)) return { ...missing, reason: `${path} resolves to ${found.realPath}, outside the child's working directory`, breaks: true };
	const wanted = spec.io_type === "directory" ? "directory" : "file";
	if (found.kind !== wanted) return { ...missing, reason: `${path} is not a ${wanted}`, breaks: true };
	if (spec.io_type !== "json") return { name: spec.name, ok: true, path: target, breaks: false };
	const read = readConfined({ written: path, baseDir: cwd, root: cwd, declaredIn: `output ${spec.name}` });
	// The loader's reader: a regular file, inside the cwd by real path, bounded in size.
	if (!read.ok) return { ...missing, reason: read.message, breaks: true };
	const json = parseJson(read.text);
	return json === null ? { name: spec.name, ok: true, path: target, breaks: false } : { ...missing, reason: `${path} is not JSON (${json})`, breaks: true };
}

/** null when `text` parses as JSON, else the parser's message. */
function parseJson(text: string): string | null {
	try {
		JSON.parse(text);
		return null;
	} catch (error) {
		return (error as Error).message;
	}
}

/** A section's text without one surrounding code fence (```json … ```). */
function unfenced(text: string): string {
	const fenced = /^(```|~~~)[^\n]*\n([\s\S]*?)\n\1\s*$/.exec(text.trim());
	return (fenced?.[2] ?? text).trim();
}

function checkSection(spec: IoSpec, answer: string | null): Checked {
	const section = answer === null ? null : answerSection(answer, spec.name);
	if (section === null || section === "") {
		const reason = section === "" ? `the <output name="${spec.name}"> section of the final answer is empty` : `the final answer has no <output name="${spec.name}"> section`;
		return { name: spec.name, ok: false, reason, breaks: spec.required || section === "" };
	}
	if (spec.io_type === "json") {
		const json = parseJson(unfenced(section));
		if (json !== null) return { name: spec.name, ok: false, reason: `its section is not JSON (${json})`, breaks: true };
	}
	if (spec.io_type === "url" && !isUrl(unfenced(section))) return { name: spec.name, ok: false, reason: "its section is not an absolute URL", breaks: true };
	return { name: spec.name, ok: true, breaks: false };
}

function checkStructured(state: StructuredState | null): Checked {
	if (state && "value" in state) return { name: STRUCTURED_OUTPUT, ok: true, breaks: false };
	const reason =
		state && state.calls > 0
			? `${SUBMIT_RESULT_TOOL} was called ${state.calls === 1 ? "once" : `${state.calls} times`}, never with a valid result${state.errors ? ` (last: ${state.errors.join("; ")})` : ""}`
			: `${SUBMIT_RESULT_TOOL} was never called`;
	return { name: STRUCTURED_OUTPUT, ok: false, reason, breaks: true };
}

/** Checks every declared output (and the structured result) against what the run left. */
export function checkContract(config: Pick<EffectiveConfig, "outputs" | "outputSchema">, facts: ContractFacts): Contract {
	const checked = (config.outputs ?? []).map((spec) => (spec.path !== null ? checkPath(spec, spec.path, facts.cwd) : checkSection(spec, facts.answer)));
	if ((config.outputSchema ?? null) !== null) checked.push(checkStructured(facts.structured));
	return {
		ok: checked.every((output) => !output.breaks),
		outputs: checked.map(({ breaks: _breaks, ...output }) => output),
		repair: null,
	};
}

/** The steering message of a repair turn: each failed output, where it must be, its description. */
export function repairMessage(config: Pick<EffectiveConfig, "outputs" | "outputSchema">, contract: Contract): string {
	const lines = contract.outputs.flatMap((output, index) => {
		if (output.ok) return [];
		const spec = (config.outputs ?? [])[index];
		return [spec ? `- ${outputLine(spec, output.reason)}` : `- ${STRUCTURED_OUTPUT} (result, required) — ${output.reason}. ${STRUCTURED_HOW}`];
	});
	return ["[cadre] You are not finished: these promised outputs are missing or not valid.", ...lines, "Produce them now, then give your final answer again."].join("\n");
}

const HEADING = /^(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$/;
const FENCE = /^[ \t]*(```|~~~)/;

/** The last `<output name="NAME">…</output>` block's text, or null. */
function taggedSection(answer: string, wanted: string): string | null {
	let tagged: string | null = null;
	for (const match of answer.matchAll(/<output\s+name\s*=\s*(["'])(.*?)\1\s*>([\s\S]*?)<\/output\s*>/gi)) {
		if ((match[2] ?? "").trim().toLowerCase() === wanted) tagged = (match[3] ?? "").trim();
	}
	return tagged;
}

/** The last Markdown section headed NAME, up to the next heading of its level or higher outside code fences. */
function headedSection(answer: string, wanted: string): string | null {
	const lines = answer.split("\n");
	let found: string | null = null;
	let fence: string | null = null;
	let open: { level: number; start: number } | null = null;
	for (let index = 0; index <= lines.length; index++) {
		const line = lines[index];
		const fenceMark = line === undefined ? undefined : FENCE.exec(line)?.[1];
		if (fenceMark) fence = fence === null ? fenceMark : fence === fenceMark ? null : fence;
		if (fenceMark || (fence !== null && line !== undefined)) continue;
		const heading = line === undefined ? null : HEADING.exec(line);
		if (line !== undefined && !heading) continue;
		const level = (heading?.[1] ?? "").length;
		if (open && (heading === null || level <= open.level)) {
			found = lines.slice(open.start, index).join("\n").trim();
			open = null;
		}
		const text = (heading?.[2] ?? "").replace(/^[*_`]+|[*_`:]+$/g, "").trim().toLowerCase();
		if (heading && text === wanted) open = { level, start: index + 1 };
	}
	return found;
}

/**
 * The text a final answer gives an output (ADR 0099): the last `<output name="NAME">…</output>`
 * block, else the last Markdown heading whose text is NAME (any level, case-insensitive, `:` or
 * `**` around it ignored) up to the next heading of the same or a higher level outside code
 * fences. Trimmed; null when the answer names no such section.
 */
export function answerSection(answer: string, name: string): string | null {
	const wanted = name.trim().toLowerCase();
	return taggedSection(answer, wanted) ?? headedSection(answer, wanted);
}
