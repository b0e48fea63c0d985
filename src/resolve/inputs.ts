/**
 * The spawn's inputs (issue 13, ADR 0099): the request's `inputs` (name → value) checked against
 * the effective persona's `inputs`. A missing required input refuses the spawn (`input-missing`,
 * naming it and its description); an input the persona does not declare is an `input-unknown`
 * warning with a did-you-mean, and is passed on; each value is checked by its `io_type` where it
 * can be — a `file` / `directory` exists and its real path stays inside the child's cwd or the
 * project, `json` parses, `url` is an absolute URL — and a value that fails refuses the spawn
 * (`input-invalid`). The only I/O goes through the reader.
 */
import { relative, resolve as resolvePath } from "node:path";
import type { IoType } from "../core/values.ts";
import { isInside } from "../files/read-confined.ts";
import { suggestKey } from "../files/suggest.ts";
import type { Entry, IoSpec } from "../files/types.ts";
import type { ResolutionContext } from "./context.ts";
import { derived, positionOf, present, show } from "./slots.ts";
import type { InputCheck, SpawnReader, TraceEntry } from "./types.ts";

/** Where the child works and what else a path input may name: the child's cwd and the project, by real path. */
interface InputRoots {
	cwd: string;
	/** Looked up on the first path input (a spawn without one touches no file). */
	realRoots(): string[];
}

type Checked = { ok: true; text: string } | { ok: false; why: string };

function checkPath(value: string, kind: "file" | "directory", roots: InputRoots, reader: SpawnReader): Checked {
	const target = resolvePath(roots.cwd, value);
	const found = reader.locate(target);
	if (found === null) return { ok: false, why: `does not exist (resolved to ${target})` };
	if (!roots.realRoots().some((root) => isInside(found.realPath, root))) {
		return { ok: false, why: `resolves to ${found.realPath}, outside the child's working directory and the project` };
	}
	if (found.kind !== kind) return { ok: false, why: `is ${found.kind === "other" ? "neither a file nor a directory" : `a ${found.kind}`}, not a ${kind}` };
	return { ok: true, text: relative(roots.cwd, target) || "." };
}

/** An absolute URL with a scheme of two letters or more (`c:/x` is a Windows path, not a URL). */
export function isUrl(value: string): boolean {
	try {
		return new URL(value).protocol.length > 2;
	} catch {
		return false;
	}
}

/** Checks one given value by the declared io_type. */
function checkValue(value: unknown, ioType: IoType, roots: InputRoots, reader: SpawnReader): Checked {
	switch (ioType) {
		case "file":
		case "directory":
			return typeof value === "string" ? checkPath(value.trim(), ioType, roots, reader) : { ok: false, why: `expects a path (text), got ${show(value)}` };
		case "json":
			if (typeof value !== "string") return { ok: true, text: JSON.stringify(value) };
			try {
				JSON.parse(value);
				return { ok: true, text: value.trim() };
			} catch (error) {
				return { ok: false, why: `is not JSON (${(error as Error).message})` };
			}
		case "url":
			if (typeof value === "string" && isUrl(value.trim())) return { ok: true, text: value.trim() };
			return { ok: false, why: `is not an absolute URL (for example https://example.com/x), got ${show(value)}` };
		case "text":
			if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") return { ok: true, text: String(value) };
			return { ok: false, why: `expects text, got ${show(value)}` };
	}
}

/** A request value that names nothing: absent, null or blank text. */
function given(value: unknown): boolean {
	return present(value) && !(typeof value === "string" && value.trim() === "");
}

function declared(spec: IoSpec, value: unknown, roots: InputRoots, reader: SpawnReader): InputCheck {
	const base = { name: spec.name, ioType: spec.io_type, required: spec.required, description: spec.description };
	if (!given(value)) return { ...base, status: spec.required ? "missing" : "not-given", text: null, note: spec.required ? "required, not given" : null };
	const checked = checkValue(value, spec.io_type, roots, reader);
	return checked.ok ? { ...base, status: "ok", text: checked.text, note: null } : { ...base, status: "invalid", text: null, note: `${show(value)} ${checked.why}` };
}

function undeclared(name: string, value: unknown, persona: Entry<"persona"> | null, names: string[]): InputCheck {
	const suggestion = suggestKey(name, names, "snake");
	const declares = persona ? (names.length > 0 ? `it declares ${names.join(", ")}` : "it declares no inputs") : "no persona applies";
	const mean = suggestion ? ` — did you mean ${suggestion.key}?` : "";
	return {
		name,
		ioType: null,
		required: false,
		description: null,
		status: "undeclared",
		text: typeof value === "string" ? value : JSON.stringify(value),
		note: `${declares}${mean}`,
	};
}

const what = (check: InputCheck) => `input "${check.name}" (${check.ioType ?? "undeclared"}${check.required ? ", required" : ""})`;

/** Records the checks' refusals and warnings. */
function report(ctx: ResolutionContext, checks: InputCheck[], persona: Entry<"persona"> | null): void {
	// A declared input's refusal points at the persona's inputs key, file:line:col (issue 19).
	const inputsKey = persona?.keys.inputs;
	const at = { ...positionOf(inputsKey?.source ?? null), ...(inputsKey?.column !== undefined ? { column: inputsKey.column } : {}) };
	const where = at.file !== null && at.line !== null ? [at.file, at.line, ...(at.column !== null ? [at.column] : [])].join(":") : (persona?.origin ?? persona?.path);
	const of = persona ? ` of persona "${persona.name}" (${where})` : "";
	for (const check of checks) {
		if (check.status === "missing") {
			const message = `${what(check)}${of} is missing${check.description ? `: ${check.description}` : ""}`;
			ctx.refusals.add("input-missing", message);
			ctx.diagnostics.add("inputs", { severity: "error", ...at, code: "input-missing", message, hint: `pass it in the request's inputs: {"${check.name}": …}` });
		} else if (check.status === "invalid") {
			const message = `${what(check)}${of}: ${check.note}`;
			ctx.refusals.add("input-invalid", message);
			ctx.diagnostics.add("inputs", { severity: "error", ...at, code: "input-invalid", message, hint: inputHint(check.ioType) });
		} else if (check.status === "undeclared") {
			const message = `request input "${check.name}" is not an input${of || " (no persona applies)"}${persona ? `: ${check.note}` : ""}; it is passed on as given`;
			ctx.diagnostics.add("inputs", { severity: "warning", file: null, line: null, column: null, code: "input-unknown", message, hint: "rename it to a declared input, or declare it in the persona's inputs" });
		}
	}
}

function inputHint(ioType: IoType | null): string {
	if (ioType === "file" || ioType === "directory") return `name an existing ${ioType} inside the child's working directory or the project, relative to the child's working directory`;
	if (ioType === "json") return "pass a JSON value, or text that parses as JSON";
	if (ioType === "url") return "pass an absolute URL";
	return "pass text";
}

/**
 * The inputs trace: the persona's declared inputs in its order, then the request's undeclared
 * ones in the request's order. `childCwd` is the absolute directory the child starts in.
 */
export function resolveInputs(ctx: ResolutionContext, persona: Entry<"persona"> | null, childCwd: string): TraceEntry {
	const raw = ctx.request.inputs;
	const specs = persona?.keys.inputs?.value ?? [];
	if (present(raw) && (typeof raw !== "object" || Array.isArray(raw))) {
		ctx.badRequest("inputs", "inputs", raw, 'an object of input name → value, e.g. {"diff": "changes.patch"}');
		return derived([], "request", "request");
	}
	const values = (raw ?? {}) as Record<string, unknown>;
	const { reader } = ctx.input;
	const projectDir = ctx.input.loaded.projectDir;
	const realOf = (path: string) => reader.locate(path)?.realPath ?? path;
	let realRoots: string[] | null = null;
	const roots: InputRoots = { cwd: childCwd, realRoots: () => (realRoots ??= [realOf(childCwd), ...(projectDir ? [realOf(projectDir)] : [])]) };
	const byName = new Map(Object.keys(values).map((name) => [name.toLowerCase(), name]));
	const checks = specs.map((spec) => declared(spec, values[byName.get(spec.name.toLowerCase()) ?? spec.name], roots, reader));
	const names = specs.map((spec) => spec.name);
	const known = new Set(names.map((name) => name.toLowerCase()));
	for (const [name, value] of Object.entries(values)) {
		if (!known.has(name.toLowerCase()) && given(value)) checks.push(undeclared(name, value, persona, names));
	}
	report(ctx, checks, persona);
	if (present(raw)) return derived(checks, "request", "request");
	const source = persona?.keys.inputs?.source;
	return source ? derived(checks, "persona", source) : derived(checks, "default", "default");
}

/** The persona's outputs, a file or directory output's `path` defaulting to its name. */
export function resolveOutputs(persona: Entry<"persona"> | null): TraceEntry {
	const outputs = persona?.keys.outputs;
	if (!outputs) return derived([], "default", "default");
	const specs = outputs.value.map((spec) => ({ ...spec, path: spec.path ?? (spec.io_type === "file" || spec.io_type === "directory" ? spec.name : null) }));
	return derived(specs, "persona", outputs.source);
}
