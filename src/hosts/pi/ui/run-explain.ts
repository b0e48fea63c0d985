/**
 * What `e` shows for one run (issue 24 item 5): that run's own resolution — the values it was
 * given (its effective config, `background` as it ran) and where each came from (its trace), with
 * what it beat, the request values that were ignored and the diagnostics of its spawn — labelled
 * with the words people use (`thinking`, `role warning`), not the config's field names. Pure lines
 * over a run record; every value passes `shown`.
 */
import { formatBudget } from "../../../core/budget.ts";
import { formatDiagnostic } from "../../../core/diagnostics.ts";
import { budgetUsage } from "../../../runtime/budget-meter.ts";
import { formatValue } from "../../../resolve/explain.ts";
import { CONFIG_FIELDS, type Field } from "../../../resolve/order.ts";
import type { Candidate, Layer, TraceEntry } from "../../../resolve/types.ts";
import type { RunRecord } from "../../../runtime/runs.ts";
import { shown, type Style, type Tone, wrapped } from "./text.ts";

/** Each config field as a person names it. */
export const FIELD_LABELS: Record<Field, string> = {
	model: "model",
	reasoningEffort: "thinking",
	capabilityMode: "capability",
	persona: "persona",
	personaInstructions: "persona instructions",
	rolePrompt: "role prompt",
	rolePromptWarning: "role warning",
	roleName: "role",
	personaError: "persona error",
	inputs: "inputs",
	outputs: "outputs",
	outputSchema: "result schema",
	isolation: "isolation",
	copyUncommitted: "copy uncommitted changes",
	sandbox: "sandbox",
	sandboxed: "runs sandboxed",
	tools: "tools",
	maxTurns: "max turns",
	runInBackground: "background",
	inheritContext: "inherits the parent's context",
	cwd: "working directory",
	standingInstructions: "standing instructions",
	definition: "definition",
	depth: "depth",
	delegation: "may delegate to",
	budget: "budget",
	verify: "verify command",
	workspace: "workspace",
};

/** Where a value came from, in words. */
const LAYER_WORDS: Record<Layer, string> = {
	request: "the request",
	"definition-floor": "the definition (a floor only the request lowers)",
	role: "the role",
	persona: "the persona",
	pin: "a pin in settings",
	definition: "the definition",
	parent: "the parent",
	default: "the default",
	resume: "the run it resumes",
};

function source(layer: Layer, where: string | null): string {
	const words = LAYER_WORDS[layer] ?? layer;
	return where && where !== layer && where !== "default" ? `${words} (${shown(where)})` : words;
}

function beat(candidates: readonly Candidate[]): string {
	return candidates
		.filter((candidate) => candidate.outcome !== "not-named")
		.map((candidate) => `${source(candidate.layer, candidate.source)} ${shown(formatValue(candidate.value))}${candidate.outcome === "overridden" ? "" : ` (${candidate.outcome})`}`)
		.join("; ");
}

/** One field's value as the run had it (background: as it ran). */
function valueOf(run: RunRecord, field: Field): string {
	if (field === "runInBackground") return run.background ? "yes" : "no";
	const value = run.config[field];
	if (typeof value === "boolean") return value ? "yes" : "no";
	if (field === "inputs" || field === "outputs") {
		const items = value as { name: string; status?: string }[];
		return items.length === 0 ? "(none)" : items.map((item) => shown(`${item.name}${item.status ? ` ${item.status}` : ""}`)).join(", ");
	}
	if (field === "outputSchema") return value === null ? "—" : shown(formatValue(JSON.stringify(value)));
	return shown(formatValue(value));
}

/** The run's own resolution as lines at `width`. */
export function runExplainLines(run: RunRecord, width: number, style: Style): string[] {
	const lines: string[] = [];
	// Text is wrapped (and escaped) first; styles go on the finished lines.
	const add = (text: string, indent = "", hang = indent, tone: Tone = "text") =>
		lines.push(...wrapped(text, width, indent, Number.POSITIVE_INFINITY, hang).map((line) => (tone === "text" ? line : style.fg(tone, line))));
	add(`${shown(run.id)}: how this run was set up (${shown(run.type)})`);
	for (const field of CONFIG_FIELDS) {
		const entry = run.trace[field] as TraceEntry | undefined;
		// Fields the resolution never traced (empty extras) are left out, like the explain table does.
		if (!entry && field !== "runInBackground") continue;
		const label = FIELD_LABELS[field];
		const from = entry ? `  ← ${source(entry.layer, entry.source)}` : "";
		const applied = field === "reasoningEffort" && entry?.applied && entry.applied !== entry.value ? ` (runs as ${shown(String(entry.applied))})` : "";
		add(`${label}: ${valueOf(run, field)}${applied}${from}`, "  ", "    ");
		const beaten = entry ? beat(entry.candidates) : "";
		if (beaten) add(`beat ${beaten}`, "    ", "    ", "muted");
	}
	if (run.budget) {
		// What the run reserved when it started (issue 22): the limit it is held to, clamped to what remained.
		const clamped = run.budget.clamped.length > 0 ? ` (clamped to what remained: ${run.budget.clamped.join(", ")})` : "";
		add(`budget reserved: ${formatBudget(run.budget.reserved)}${clamped}; used ${budgetUsage(run.budget) || "nothing limited"}`, "  ", "    ");
	}
	if (run.ignored.length > 0) {
		add("ignored from the request:", "", "", "warning");
		for (const item of run.ignored) add(`${shown(item.key)} ${shown(formatValue(item.requested))}: ${shown(item.reason)}`, "  ", "    ");
	}
	if (run.diagnostics.length > 0) {
		add("diagnostics:", "", "", "warning");
		for (const diagnostic of run.diagnostics) add(shown(formatDiagnostic(diagnostic)), "  ", "    ");
	}
	return lines;
}
