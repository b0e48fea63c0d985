/**
 * The explain report (spec 02 "The trace", spec 06 `cadre explain`): a resolution plus the worktree
 * feasibility check, and its human rendering — a table of every effective field with its value, the
 * layer and source that supplied it, and what it beat, then the diagnostics of the files involved.
 * Pure; shared by `cadre explain` and pi's `/subagents explain`.
 */
import { compareDiagnostics, type Diagnostic, formatDiagnostic } from "../core/diagnostics.ts";
import { bold, red } from "../core/terminal-text.ts";
import { type Budget, formatBudget } from "../core/budget.ts";
import { fitTable, wrapLine } from "../core/wrap.ts";
import { showValue } from "../files/keys.ts";
import { MAX_NESTING } from "../files/raw.ts";
import { CONFIG_FIELDS } from "./order.ts";
import { resolve } from "./resolve.ts";
import type { IoSpec } from "../files/types.ts";
import { budgetLines, capText, delegationCell, parentLines } from "./explain-nesting.ts";
import { type ExplainDirs, type ExplainSandbox, explainSandbox, sandboxLines, toolsCell } from "./explain-sandbox.ts";
import { type ChainLink, nestedInput, resolveChain } from "./nested.ts";
import type { Candidate, Delegation, InputCheck, Refusal, ResolveInput, ResolveResult, TraceEntry } from "./types.ts";

/** The `--json` object (spec 06); `parents` only for a nested spawn (`--parent`). */
export interface ExplainJson {
	type: string;
	refused: ResolveResult["refused"];
	config: ResolveResult["config"];
	trace: ResolveResult["trace"];
	diagnostics: Diagnostic[];
	/**
	 * The OS sandbox the child would run in (issue 27): its policy, what bash is to it, the tools
	 * outside it; null when refused. Absent when the caller gave no home and agent dir.
	 */
	sandbox?: ExplainSandbox | null;
	/** The spawning chain, outermost first (issue 21). */
	parents?: ChainLink[];
}

/**
 * Worktree feasibility (spec 02): effective worktree isolation outside a git repository is a
 * `worktree-unavailable` warning, never a refusal — the spawn itself fails closed later.
 */
export function worktreeFeasibility(result: ResolveResult, input: ResolveInput): Diagnostic | null {
	if (result.config?.isolation !== "worktree" || input.parent.repoRoot !== null) return null;
	return {
		severity: "warning",
		file: null,
		line: null,
		column: null,
		code: "worktree-unavailable",
		message: `isolation "worktree" (from ${result.trace.isolation?.layer ?? "?"}) needs a git repository, and ${input.parent.cwd} is not inside one; the spawn would be refused`,
		hint: "run from inside a git repository, or request isolation: none",
	};
}

/**
 * Resolves and adds the feasibility check: the object `--json` prints. With `parents` (outermost
 * first) the spawn is resolved as the last parent's child; a parent that would be refused refuses
 * the spawn with its code, and the target is not resolved.
 */
export function explain(input: ResolveInput, parents: readonly string[] = [], dirs?: ExplainDirs): ExplainJson {
	if (parents.length === 0) return explainOne(input, dirs);
	const chain = resolveChain(input, parents);
	if (chain.failed) {
		const link = chain.links[chain.links.length - 1] as ChainLink;
		const refused = chain.failed.refused as Refusal;
		const message = `parent "${link.type}" (depth ${link.depth}) would be refused ${refused.code}: ${refused.message}`;
		const failed: ExplainJson = { type: input.type ?? "general-purpose", refused: { code: refused.code, message }, config: null, trace: {}, diagnostics: chain.failed.diagnostics };
		return { ...failed, ...(dirs ? { sandbox: null } : {}), parents: chain.links };
	}
	return { ...explainOne(nestedInput(input, chain.spawner), dirs), parents: chain.links };
}

function explainOne(input: ResolveInput, dirs?: ExplainDirs): ExplainJson {
	const result = resolve(input);
	const feasibility = worktreeFeasibility(result, input);
	return {
		type: result.type,
		refused: result.refused,
		config: result.config,
		trace: result.trace,
		diagnostics: feasibility ? [...result.diagnostics, feasibility] : result.diagnostics,
		...(dirs ? { sandbox: explainSandbox(result, input, dirs) } : {}),
	};
}

const MAX_VALUE = 48;

/** One item of a listed value; objects as JSON (a TOML table has no prototype, so no `toString`). */
function listItem(item: unknown): string {
	if (item === null || item === undefined) return "";
	return typeof item === "object" ? showValue(item) : String(item);
}

/** A value in one table cell: null as `—`, lists joined, long text cut to its start and length. */
export function formatValue(value: unknown): string {
	if (value === null || value === undefined) return "—";
	if (Array.isArray(value)) return value.length === 0 ? "(none)" : value.flat(MAX_NESTING).map(listItem).join(", ");
	if (typeof value === "object") {
		const record = value as Record<string, unknown>;
		if (typeof record.name === "string" && typeof record.source === "string") return `${record.name} (${record.source})`;
		return showValue(value);
	}
	const text = String(value);
	const firstLine = text.split("\n")[0] ?? "";
	if (firstLine.length <= MAX_VALUE && firstLine === text) return text;
	return `${firstLine.slice(0, MAX_VALUE - 1)}… (${text.length} chars)`;
}

/** A field's table cell: inputs and outputs by name and type, the rest by `formatValue`. */
function cell(field: string, value: unknown): string {
	if (field === "inputs" && Array.isArray(value)) {
		const shown = (value as InputCheck[]).map((check) => `${check.name} ${check.status}`);
		return shown.length === 0 ? "(none)" : shown.join(", ");
	}
	if (field === "outputs" && Array.isArray(value)) {
		const shown = (value as IoSpec[]).map((spec) => `${spec.name} (${spec.io_type}${spec.path ? ` ${spec.path}` : ""})`);
		return shown.length === 0 ? "(none)" : shown.join(", ");
	}
	if (field === "outputSchema" && value !== null) return formatValue(JSON.stringify(value));
	if (field === "delegation" && value !== null) return delegationCell(value as Delegation);
	if (field === "budget" && value !== null) return formatBudget(value as Budget);
	return formatValue(value);
}

/** The input check below the table: one line per input, its type, whether required, the outcome. */
function inputLines(checks: InputCheck[], width: number | null): string[] {
	if (checks.length === 0) return [];
	const rows = checks.map((check) => [
		check.name,
		check.ioType ?? "—",
		check.required ? "required" : "optional",
		check.status === "ok" ? `ok: ${check.text}` : `${check.status}${check.note ? `: ${check.note}` : ""}`,
	]);
	return ["", "inputs:", ...table(rows, false, width === null ? null : width - 2).split("\n").map((line) => `  ${line}`)];
}

function from(entry: TraceEntry): string {
	if (entry.source.startsWith(`${entry.layer} `)) return entry.source; // `parent lead`
	return entry.source === entry.layer || entry.source === "default" ? entry.layer : `${entry.layer} ${entry.source}`;
}

function beaten(candidates: Candidate[]): string {
	const parts = candidates
		.filter((candidate) => candidate.outcome !== "not-named")
		.map((candidate) => {
			const where = candidate.source && candidate.source !== candidate.layer ? ` ${candidate.source}` : "";
			const label = candidate.outcome === "overridden" ? "" : ` (${candidate.outcome})`;
			return `${candidate.layer} ${formatValue(candidate.value)}${label}${where}`;
		});
	return parts.length === 0 ? "" : parts.join("; ");
}

/** The file part of a trace source (`path:line`, `settings:path:line`), or null. */
function sourceFile(source: string | null): string | null {
	if (source === null || ["bundled", "request", "parent", "default"].includes(source) || source.startsWith("resume:") || source.startsWith("parent ")) return null;
	const bare = source.startsWith("settings:") ? source.slice("settings:".length) : source;
	return bare.replace(/:\d+$/, "");
}

/** The files that supplied a winner or a candidate. */
function involvedFiles(output: ExplainJson): Set<string> {
	const files = new Set<string>();
	for (const entry of Object.values(output.trace)) {
		if (!entry) continue;
		const file = sourceFile(entry.source);
		if (file) files.add(file);
		for (const candidate of entry.candidates) {
			const candidateFile = sourceFile(candidate.source);
			if (candidateFile) files.add(candidateFile);
		}
		for (const dimension of Object.values(entry.dimensions ?? {})) {
			for (const source of [dimension.source, dimension.capped?.source ?? null, ...dimension.candidates.map((candidate) => candidate.source)]) {
				const file = sourceFile(source);
				if (file) files.add(file);
			}
		}
	}
	if (output.config) {
		const definitionFile = sourceFile(output.config.definition.source);
		if (definitionFile) files.add(definitionFile);
	}
	return files;
}

function table(rows: string[][], tty: boolean, width: number | null = null): string {
	return fitTable(rows, width, tty ? bold : undefined).join("\n");
}

/** What a spawn's verify does, and what its receipt will and will not prove (issue 23). */
function verifyNote(verify: { command: string; timeoutMs: number }): string {
	return (
		`verify: cadre runs \`${verify.command}\` in the child's cwd after it completes (timeout ${Math.round(verify.timeoutMs / 1000)} s; one repair turn when it fails). ` +
		"Every result also carries a receipt — the files, commands (exit codes) and tool uses cadre observed: proof that they happened, not that the work is right."
	);
}

/**
 * The human form: header, the field table, then diagnostics of the files involved. `tty` adds
 * styles; the caller hands in `safeFields(output)` when the text goes to a terminal (ADR 0075).
 * `width` fits every line to it (the table's widest columns wrap; ADR 0108); null: no wrapping.
 */
export function renderExplain(output: ExplainJson, tty = false, width: number | null = null): string {
	const lines: string[] = [];
	const refusedText = output.refused ? `refused: ${output.refused.code} — ${output.refused.message}` : "would spawn";
	const head = wrapLine(`${output.type}: ${refusedText}`, width, "  ");
	lines.push(...(tty && output.refused ? head.map((line) => red(line)) : head));
	lines.push(...parentLines(output.parents ?? []));
	if (output.config) {
		lines.push("");
		const rows = [["field", "value", "from", "beat"]];
		for (const field of CONFIG_FIELDS) {
			const entry = output.trace[field];
			if (!entry) continue;
			let value = (field === "tools" ? toolsCell(output.config.tools, output.sandbox ?? null) : null) ?? cell(field, output.config[field]);
			if (field === "reasoningEffort" && entry.applied && entry.applied !== entry.value) value += ` (runs as ${entry.applied})`;
			if (field === "model" && entry.unverified) value += " (unverified: no credential here)";
			rows.push([field, value, from(entry), [capText(entry), beaten(entry.candidates)].filter((part) => part !== "").join("; ")]);
		}
		lines.push(table(rows, tty, width));
		lines.push(...inputLines(output.config.inputs ?? [], width));
		const budget = output.trace.budget?.dimensions;
		if (budget) lines.push(...budgetLines(budget, (entry) => [from(entry), capText(entry), beaten(entry.candidates)], (rows) => table(rows, false, width)));
		if (output.sandbox) lines.push(...sandboxLines(output.sandbox).flatMap((line) => (line === "" ? [""] : wrapLine(line, width, "    "))));
		if (output.config.verify) lines.push("", verifyNote(output.config.verify));
	}
	const files = involvedFiles(output);
	const shown = output.diagnostics.filter((d) => d.file === null || files.has(d.file));
	const rest = output.diagnostics.length - shown.length;
	if (shown.length > 0 || rest > 0) {
		lines.push("", "diagnostics:");
		for (const diagnostic of [...shown].sort(compareDiagnostics)) lines.push(...wrapLine(`  ${formatDiagnostic(diagnostic)}`, width, "    "));
		if (rest > 0) lines.push(`  ${rest} more — run \`cadre check\``);
	}
	return `${lines.join("\n")}\n`;
}
