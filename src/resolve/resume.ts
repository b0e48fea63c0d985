/**
 * A resume (spec 02 "Resume", spec 04): it reuses the stored config of the source run. An omitted
 * type or persona means the source's; a different one is refused; every other request key except
 * prompt, description and run_in_background is ignored and reported.
 */
import { UNLIMITED } from "../core/budget.ts";
import type { Diagnostic } from "../core/diagnostics.ts";
import { nameKey } from "../core/values.ts";
import { CONFIG_FIELDS } from "./order.ts";
import { derived, present, show } from "./slots.ts";
import type { EffectiveConfig, IgnoredRequestValue, Refusal, ResolveInput, ResolveResult, Trace } from "./types.ts";

/** Request keys a resume ignores (everything but prompt, description, run_in_background, type, persona). */
const RESUME_IGNORED_KEYS = ["model", "thinking", "capability", "isolation", "copy_uncommitted", "cwd", "max_turns", "inherit_context", "inputs", "output_schema"] as const;

/** Why the resume cannot go ahead, or null. */
function resumeRefusal(input: ResolveInput, id: string): string | null {
	const { request } = input;
	const stored = input.resumeFrom ?? null;
	if (!stored || stored.id !== id) return `no finished run with id "${id}" to resume`;
	const storedType = stored.config.definition.name;
	if (stored.state === "running" || stored.state === "queued") {
		return `run "${id}" is ${stored.state}; wait for it to finish (get_subagent_result with wait: true) or steer it instead`;
	}
	if (input.type !== null && nameKey(input.type) !== nameKey(storedType)) {
		return `run "${id}" is of type "${storedType}"; a resume cannot change it to "${input.type}" (omit subagent_type)`;
	}
	if (present(request.persona)) {
		const raw = request.persona;
		const asked = typeof raw === "string" && nameKey(raw) !== "none" ? nameKey(raw) : null;
		const had = stored.config.persona === null ? null : nameKey(stored.config.persona);
		const ran = stored.config.persona === null ? "no persona" : `persona ${show(stored.config.persona)}`;
		if (asked !== had) return `run "${id}" ran with ${ran}; a resume cannot change it to ${show(raw)} (omit persona)`;
	}
	return null;
}

/** Resolves a request that names `resume`. */
export function resolveResume(input: ResolveInput): ResolveResult {
	const { request, loaded } = input;
	const id = String(request.resume);
	const stored = input.resumeFrom ?? null;
	const refusal = resumeRefusal(input, id);
	if (refusal !== null || !stored) {
		const matches = stored !== null && stored.id === id;
		return {
			type: matches ? stored.config.definition.name : (input.type ?? "general-purpose"),
			config: matches ? stored.config : null,
			trace: {},
			diagnostics: [...loaded.diagnostics],
			refused: { code: "resume-refused", message: refusal ?? `no finished run with id "${id}" to resume` },
			ignored: [],
		};
	}
	// A record written before inputs and outputs (or nesting and budgets) existed has none.
	const config: EffectiveConfig = {
		...stored.config,
		inputs: stored.config.inputs ?? [],
		outputs: stored.config.outputs ?? [],
		outputSchema: stored.config.outputSchema ?? null,
		depth: stored.config.depth ?? 1,
		delegation: stored.config.delegation ?? { allowed: false, subagents: [], reason: "the run was recorded before nesting existed", maxDepth: loaded.settings.maxDepth.value },
		budget: stored.config.budget ?? { ...UNLIMITED },
		sandbox: stored.config.sandbox ?? "auto",
		sandboxed: stored.config.sandboxed ?? input.parent.sandbox?.available === true,
	};
	const diagnostics: Diagnostic[] = [];
	const ignored: IgnoredRequestValue[] = [];
	for (const requestKey of RESUME_IGNORED_KEYS) {
		const raw = request[requestKey];
		if (!present(raw)) continue;
		const reason = `a resume reuses the stored config of run "${id}"`;
		ignored.push({ key: requestKey, requested: raw, reason });
		diagnostics.push({ severity: "warning", file: null, line: null, column: null, code: "request-ignored", message: `request ${requestKey} ${show(raw)} is ignored: ${reason}` });
	}
	const source = `resume:${id}`;
	const trace: Partial<Trace> = {};
	for (const field of CONFIG_FIELDS) trace[field] = derived(config[field], "resume", source);
	let refused: Refusal | null = null;
	if (present(request.run_in_background)) {
		if (typeof request.run_in_background === "boolean") {
			config.runInBackground = request.run_in_background;
			trace.runInBackground = derived(config.runInBackground, "request", "request");
		} else {
			const message = `request run_in_background ${show(request.run_in_background)} is not valid; valid values: true, false`;
			refused = { code: "bad-request", message };
			diagnostics.push({ severity: "error", file: null, line: null, column: null, code: "bad-value", message });
		}
	}
	if (trace.reasoningEffort && config.reasoningEffort !== null) {
		trace.reasoningEffort.applied = config.model === null ? config.reasoningEffort : input.models.clampThinking(config.model, config.reasoningEffort);
	}
	return { type: stored.config.definition.name, config, trace, diagnostics: [...loaded.diagnostics, ...diagnostics], refused, ignored };
}
