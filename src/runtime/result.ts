/**
 * Results (spec 04 "Results"): what a run reports to the parent — status, the final text capped at
 * `maxResultChars` with a pointer to the transcript, usage, tool uses, turns, duration, transcript,
 * isolation report and the requested-vs-used block — plus the completion notification text and
 * the progress report of a timed-out wait.
 */
import { type DiagnosticCode, formatListedDiagnostic } from "../core/diagnostics.ts";
import { safeText } from "../core/terminal-text.ts";
import type { InputCheck } from "../resolve/types.ts";
import { budgetLine, type RunBudget } from "./budget-meter.ts";
import type { Contract } from "./contract.ts";
import { type VerifyOutcome, verifyResultText } from "./verify-run.ts";
import { type Receipt, receiptCommands, receiptFiles, receiptText } from "./receipt.ts";
import type { RunRecord } from "./runs.ts";

/**
 * The resolution's own diagnostics (spec 02/04/05): what this spawn discarded or changed; and the
 * run's own (ADR 0079): an extension of the child that failed, a steered message pi refused.
 */
const RESOLUTION_CODES: ReadonlySet<DiagnosticCode> = new Set<DiagnosticCode>([
	"tool-unavailable",
	"tool-dropped",
	"model-unresolvable",
	"thinking-clamped",
	"request-ignored",
	"worktree-unavailable",
	"sandbox-unavailable",
	"sandbox-blocked",
	"input-unknown",
	"extension-error",
	"steer-undelivered",
	"verify-untrusted",
	"budget-clamped",
]);

/** Whether a diagnostic is the resolution's own for this spawn (a result warning), not a file's. */
export function isResolutionDiagnostic(diagnostic: { code: DiagnosticCode }): boolean {
	return RESOLUTION_CODES.has(diagnostic.code);
}

/** One request value next to the value the run used. */
export interface RequestedVsUsed {
	field: string;
	requested: unknown;
	used: unknown;
	/** Why they differ (ignored, invalid, unresolvable), or null when the request won. */
	note: string | null;
}

/** The structured result (tool `details`, service answers, `--json`). */
export interface RunResult {
	id: string;
	type: string;
	description: string;
	status: RunRecord["state"];
	text: string | null;
	truncated: boolean;
	error: string | null;
	usage: RunRecord["usage"];
	/** Its own usage plus every descendant's (issue 21); its own usage while it runs. */
	treeUsage: RunRecord["usage"];
	/** How many runs of its subtree ran. */
	descendants: number;
	/** The run that spawned it, or null for a child of the root session; and its depth (1 there). */
	parentId: string | null;
	depth: number;
	toolUses: number;
	turns: number;
	durationMs: number | null;
	transcript: string | null;
	isolation: RunRecord["isolation"];
	limitReached: boolean;
	/** Why cadre stopped a `stopped` run: `budget` (ADR 0176), else null. */
	stopReason: "budget" | null;
	/** The run's budget (issue 22): `{limit, reserved, used, source, clamped, stoppedBy, warned}`, or null without one. */
	budget: RunBudget | null;
	/** Why the run's record could not be written to disk (it will not outlive this session), or null. */
	persistError: string | null;
	/** The W3C trace id of the run's spans when telemetry is on (ADR 0145), else null. */
	traceId: string | null;
	model: string | null;
	thinking: string | null;
	capabilityMode: string | null;
	persona: string | null;
	tools: string[];
	/** Whether the child's tools ran in the OS sandbox (ADR 0150); null for runs from before it. */
	sandboxed: boolean | null;
	/** The sandbox mode the files asked for (`auto`, `required`, `off`), or null for runs from before it. */
	sandboxMode: string | null;
	/** What the sandbox blocked, as the platform and the file tools reported it (`read: read ~/.ssh/id_rsa`); bash's are not reported on Linux. */
	sandboxBlocked?: string[];
	requestedVsUsed: RequestedVsUsed[];
	/**
	 * The persona's outputs and the structured result as checked when the run ended (ADR 0099):
	 * `ok`, each output with `ok`, `path` (file and directory outputs) and `reason`, and whether a
	 * repair turn was sent and worked; null when the run promised nothing.
	 */
	contract: Contract | null;
	/** The value the child's `submit_result` accepted (its `output_schema`), or null. */
	structured: unknown;
	/** The run's own `verify` as cadre ran it (issue 23): `{ command, exitCode, ok, durationMs, outputTail, repair }`, or null. */
	verify: VerifyOutcome | null;
	/** What cadre saw the child do (issue 23): files changed with +/- lines, bash commands with exit codes, tool uses; null for a run that never started. */
	receipt: Receipt | null;
	/**
	 * The resolution's warnings for this spawn (dropped or unavailable tools, clamped thinking,
	 * ignored request values, …) and what went wrong in the run without ending it (an extension of
	 * the child that failed to load or threw, a steered message pi refused) as
	 * `file:line:col severity code message (hint)`; never the project's unrelated load diagnostics.
	 */
	warnings: string[];
}

/** The inputs row: the names the request gave next to those passed on, and which no persona declares. */
function inputsRow(checks: InputCheck[]): RequestedVsUsed {
	const given = checks.filter((check) => check.status === "ok" || check.status === "undeclared");
	const undeclared = given.filter((check) => check.status === "undeclared").map((check) => check.name);
	return {
		field: "inputs",
		requested: given.map((check) => check.name),
		used: given.map((check) => check.name),
		note: undeclared.length > 0 ? `not declared by the persona: ${undeclared.join(", ")}` : null,
	};
}

/** The contract row: what the files and the request promised next to what the run produced. */
function contractRow(contract: Contract): RequestedVsUsed {
	const failed = contract.outputs.filter((output) => !output.ok);
	const repair = contract.repair === null ? "" : contract.repair.steered ? (contract.repair.worked ? "; repaired by a repair turn" : "; a repair turn did not fix it") : `; no repair turn: ${contract.repair.skipped}`;
	return {
		field: "contract",
		requested: contract.outputs.map((output) => output.name),
		used: contract.outputs.filter((output) => output.ok).map((output) => output.name),
		note: failed.length === 0 && contract.repair === null ? null : `${failed.map((output) => `${output.name}: ${output.reason}`).join("; ") || "kept"}${repair}`,
	};
}

/** Request values and what was used, from the trace and the resolver's `ignored` list, and the contract. */
export function requestedVsUsed(run: RunRecord): RequestedVsUsed[] {
	const rows: RequestedVsUsed[] = [];
	for (const [field, entry] of Object.entries(run.trace)) {
		if (!entry) continue;
		if (field === "inputs") {
			if (entry.layer === "request") rows.push(inputsRow(entry.value as InputCheck[]));
			continue;
		}
		const used = field === "reasoningEffort" && entry.applied !== undefined ? entry.applied : entry.value;
		if (entry.layer === "request") {
			rows.push({ field, requested: entry.value, used, note: used === entry.value ? null : "clamped for the model" });
			continue;
		}
		const fromRequest = entry.candidates.find((candidate) => candidate.layer === "request" && candidate.outcome !== "not-named");
		if (fromRequest) rows.push({ field, requested: fromRequest.value, used, note: fromRequest.outcome });
	}
	for (const ignored of run.ignored) {
		rows.push({ field: ignored.key, requested: ignored.requested, used: null, note: `ignored: ${ignored.reason}` });
	}
	if (run.contract) rows.push(contractRow(run.contract));
	return rows;
}

/** The structured result of a run, its text capped at `maxResultChars`. */
export function runResult(run: RunRecord, maxResultChars: number): RunResult {
	const full = run.text ?? "";
	const truncated = full.length > maxResultChars;
	const text = truncated
		? `${full.slice(0, maxResultChars)}\n[… ${full.length - maxResultChars} more characters; the full text is in the transcript ${run.transcript ?? "(not persisted)"}]`
		: run.text;
	return {
		id: run.id,
		type: run.type,
		description: run.description,
		status: run.state,
		text,
		truncated,
		error: run.error,
		usage: { ...run.usage },
		treeUsage: { ...(run.treeUsage ?? run.usage) },
		descendants: run.descendants ?? 0,
		parentId: run.parentId ?? null,
		depth: run.depth ?? 1,
		toolUses: run.toolUses,
		turns: run.turns,
		durationMs: run.startedAt === null ? null : (run.endedAt ?? Date.now()) - run.startedAt,
		transcript: run.transcript,
		isolation: run.isolation,
		limitReached: run.limitReached,
		stopReason: run.stopReason ?? null,
		budget: run.budget ? structuredClone(run.budget) : null,
		persistError: run.persistError,
		traceId: run.traceId ?? null,
		model: run.config.model,
		thinking: (run.trace.reasoningEffort?.applied as string | undefined) ?? run.config.reasoningEffort,
		capabilityMode: run.config.capabilityMode,
		persona: run.config.persona,
		tools: [...run.config.tools],
		sandboxed: run.config.sandboxed ?? null,
		sandboxMode: run.config.sandbox ?? null,
		sandboxBlocked: sandboxBlocked(run.diagnostics),
		requestedVsUsed: requestedVsUsed(run),
		contract: run.contract === null ? null : structuredClone(run.contract),
		structured: run.structured ?? null,
		verify: run.verify ? structuredClone(run.verify) : null,
		receipt: run.receipt ? structuredClone(run.receipt) : null,
		// one of no file without the "-" that stands for its place (the text lists them as "- …")
		warnings: run.diagnostics.filter(isResolutionDiagnostic).map(formatListedDiagnostic),
	};
}

/** The attempts of the run's `sandbox-blocked` diagnostics (`read: read /home/me/.ssh/id_rsa`). */
export function sandboxBlocked(diagnostics: readonly { code: string; message: string }[]): string[] {
	return diagnostics.filter((d) => d.code === "sandbox-blocked").map((d) => d.message.replace(/^the sandbox blocked /, ""));
}

/**
 * Fields of a {@link RunResult} a parent's stored tool result leaves out (ADR 0188, 0193): they
 * stay in the run record, and the service (`get(id)`), `/subagents` and the tool rows read them
 * from there by id. The answer is in the result's text already; the tree's usage in pi's `usage`.
 */
export const RECORD_ONLY_FIELDS = [
	"receipt",
	"requestedVsUsed",
	"tools",
	"thinking",
	"sandboxed",
	"sandboxMode",
	"traceId",
	"text",
	"transcript",
	"treeUsage",
	"model",
	"capabilityMode",
	"persona",
] as const;
const RECORD_ONLY: ReadonlySet<string> = new Set(RECORD_ONLY_FIELDS);

/** Values a reader assumes when a field is missing from stored details (ADR 0193). */
const DEFAULTS: Readonly<Record<string, unknown>> = { descendants: 0, depth: 1 };

/**
 * What a parent session stores as a result's `details`: the result without {@link RECORD_ONLY_FIELDS}
 * and without empty or default values (null, an empty list, false, no descendants, depth 1) — a
 * reader treats a missing field as null, empty, false or that default.
 * Details stored before (every field) read the same way.
 */
export type ResultDetails = Pick<RunResult, "id" | "type" | "description" | "status"> & Partial<Omit<RunResult, "id" | "type" | "description" | "status">>;

/** The slim `details` of `result` (see {@link ResultDetails}). */
export function resultDetails(result: RunResult): ResultDetails {
	const out: Record<string, unknown> = {};
	for (const [key, value] of Object.entries(result)) {
		if (RECORD_ONLY.has(key) || value === null || value === false || (Array.isArray(value) && value.length === 0) || DEFAULTS[key] === value) continue;
		out[key] = value;
	}
	return out as ResultDetails;
}

/** `1 turn`, `2 turns`. */
export function counted(n: number, noun: string): string {
	return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

const MAX_SHOWN = 160;

/** A value in one line of the result text; long values (a schema) are cut to their start and length. */
function show(value: unknown): string {
	const text = value === null || value === undefined ? "none" : typeof value === "string" ? value : JSON.stringify(value);
	return text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN - 1)}… (${text.length} chars)` : text;
}

/** `Contract: kept (report ✓, patch ✓ out/patch.diff).` / `Contract: NOT kept — …` */
function contractLine(contract: Contract): string {
	const outputs = contract.outputs.map((output) => `${output.name} ${output.ok ? "ok" : `missing: ${output.reason}`}${output.path ? ` (${output.path})` : ""}`).join("; ");
	const repair = contract.repair === null ? "" : contract.repair.steered ? ` Repair turn: sent once; ${contract.repair.worked ? "it fixed the contract" : "the contract is still not kept"}.` : ` No repair turn: ${contract.repair.skipped}.`;
	return `Contract: ${contract.ok ? "kept" : "NOT kept"} — ${outputs}.${repair}`;
}

/** Every token a run's usage counts (input, output and both cache directions). */
export function totalTokens(usage: RunRecord["usage"]): number {
	return usage.input + usage.output + usage.cacheRead + usage.cacheWrite;
}

/** `12.3k in / 456 out, $0.0012` */
export function formatUsage(usage: RunRecord["usage"]): string {
	const n = (value: number) => (value >= 1000 ? `${(value / 1000).toFixed(1)}k` : String(value));
	const cache = usage.cacheRead || usage.cacheWrite ? `, cache ${n(usage.cacheRead)} read / ${n(usage.cacheWrite)} write` : "";
	return `${n(usage.input)} in / ${n(usage.output)} out${cache}, $${usage.cost.toFixed(4)}`;
}

/** Whether the child ran in the OS sandbox (its blocked attempts are among the warnings). */
function sandboxLine(sandboxed: boolean, blocked: readonly string[] = []): string {
	if (!sandboxed) return "Sandbox: not sandboxed — its tools ran with your access.";
	const attempts = blocked.length === 0 ? "" : ` It blocked ${blocked.length === 1 ? "1 attempt" : `${blocked.length} attempts`}: ${blocked.slice(0, 5).join("; ")}${blocked.length > 5 ? "; …" : ""}.`;
	return `Sandbox: sandboxed — its commands and file tools could write only in its working tree and temp dir, read none of your secrets, reach no network.${attempts}`;
}

/** How much of a result the text says: only what is not the default (the parent's answer), or everything. */
export interface FormatOptions {
	/** Every line: model, tools, sandbox, usage, transcript, requested vs used, the whole receipt (get_subagent_result `verbose`). */
	verbose?: boolean;
}

/**
 * The text the parent model reads for a finished run; pi also shows it to the person, so control
 * characters in the child's output are shown escaped (ADR 0075; `details` keeps the exact text).
 * By default (ADR 0193) it says only what is not the default: a compact header, then the error,
 * the request values not honoured, the sandbox when it blocked something or was not what the
 * sandbox mode asked for, files changed and failed commands, and what only some runs have; the
 * rest stays in the run record, reachable by id (`verbose`).
 */
export function formatResult(result: RunResult, options: FormatOptions = {}): string {
	return safeText((options.verbose ? verboseLines(result) : compactLines(result)).join("\n"));
}

/** `0.0s`, or `not started`. */
function durationText(result: RunResult): string {
	return result.durationMs === null ? "not started" : `${(result.durationMs / 1000).toFixed(1)}s`;
}

/**
 * The lines only some runs have, in both forms, in groups (the verbose text puts the transcript
 * and the requested-vs-used block between them): tree, budget, persistence, isolation, and
 * warnings with the contract and verify.
 */
function exceptionalLines(result: RunResult): [string[], string[], string[], string[], string[]] {
	const rest: string[] = [];
	if (result.warnings.length > 0) rest.push("Warnings:", ...result.warnings.map((warning) => `- ${warning}`));
	if (result.contract) rest.push(contractLine(result.contract));
	if (result.verify) rest.push(verifyResultText(result.verify));
	return [
		result.descendants > 0 ? [`Tree: ${counted(result.descendants, "descendant")} ran; with them ${formatUsage(result.treeUsage)}.`] : [],
		result.budget ? [budgetLine(result.budget)] : [],
		result.persistError ? [`Not persisted: ${result.persistError}; after this session this run cannot be listed or resumed.`] : [],
		result.isolation ? [`Isolation: ${JSON.stringify(result.isolation)}`] : [],
		rest,
	];
}

/** The receipt's lines that say something: files changed, and the commands when one failed. */
function receiptNews(receipt: Receipt | null): string[] {
	if (!receipt) return [];
	const lines: string[] = [];
	if (receipt.files.length > 0) lines.push(`Files changed (${receipt.filesFrom}): ${receiptFiles(receipt)}.`);
	if (receipt.failedCommands > 0) lines.push(`Commands: ${receiptCommands(receipt)}.`);
	return lines;
}

/** Whether the sandbox line says something: it blocked an attempt, or the run was not sandboxed though its mode asked for a sandbox. */
function sandboxNews(result: RunResult): boolean {
	if (result.sandboxed === null) return false;
	if ((result.sandboxBlocked ?? []).length > 0) return true;
	return result.sandboxed === false && result.sandboxMode !== null && result.sandboxMode !== "off";
}

/** The default text (ADR 0193): `id · status · duration · turns`, what is not the default, the answer. */
function compactLines(result: RunResult): string[] {
	const lines = [`${result.id} · ${result.status}${result.limitReached ? " at its max_turns limit" : ""} · ${durationText(result)} · ${counted(result.turns, "turn")}`];
	if (result.error) lines.push(`Error: ${result.error}`);
	const differing = result.requestedVsUsed.filter((row) => row.note !== null && row.field !== "contract");
	if (differing.length > 0) lines.push(`Not as requested: ${differing.map((row) => `${row.field} ${show(row.requested)} → ${show(row.used)} (${row.note})`).join("; ")}.`);
	if (result.sandboxed !== null && sandboxNews(result)) lines.push(sandboxLine(result.sandboxed, result.sandboxBlocked));
	lines.push(...exceptionalLines(result).flat(), ...receiptNews(result.receipt));
	if (result.structured !== null && result.structured !== undefined) lines.push(`Structured result (submit_result): ${JSON.stringify(result.structured)}`);
	lines.push("", result.text ?? "(no final text)");
	return lines;
}

/** Every line (`verbose`): the text as it was before ADR 0193. */
function verboseLines(result: RunResult): string[] {
	const lines = [
		`Sub-agent ${result.id} (${result.type}: ${result.description}) ${result.status}${result.limitReached ? " at its max_turns limit" : ""}.`,
	];
	if (result.error) lines.push(`Error: ${result.error}`);
	lines.push(
		`Model ${show(result.model)}, thinking ${show(result.thinking)}, capability ${result.capabilityMode ?? "unset (no filter)"}${result.persona ? `, persona ${result.persona}` : ""}; tools: ${result.tools.join(", ") || "none"}.`,
	);
	if (result.sandboxed !== null) lines.push(sandboxLine(result.sandboxed, result.sandboxBlocked));
	lines.push(`${counted(result.turns, "turn")}, ${counted(result.toolUses, "tool use")}, ${durationText(result)}, ${formatUsage(result.usage)}.`);
	const [tree, budget, persisted, isolation, rest] = exceptionalLines(result);
	lines.push(...tree, ...budget);
	if (result.transcript) lines.push(`Transcript: ${result.transcript}`);
	lines.push(...persisted, ...isolation);
	if (result.requestedVsUsed.length > 0) {
		lines.push(
			`Requested vs used: ${result.requestedVsUsed.map((row) => `${row.field} ${show(row.requested)} → ${show(row.used)}${row.note ? ` (${row.note})` : ""}`).join("; ")}.`,
		);
	} else lines.push("Requested vs used: nothing requested beyond the prompt.");
	lines.push(...rest);
	if (result.receipt) lines.push(receiptText(result.receipt));
	if (result.structured !== null && result.structured !== undefined) lines.push(`Structured result (submit_result): ${JSON.stringify(result.structured)}`);
	lines.push("", result.text ?? "(no final text)");
	return lines;
}

/**
 * The completion notification: id, status, a ≤ 500-character preview, usage, transcript. pi shows
 * it as it is, so control characters are shown escaped (ADR 0075).
 */
export function notificationText(run: RunRecord): string {
	const text = run.text ?? run.error ?? "";
	const preview = text.length > 500 ? `${text.slice(0, 499)}…` : text;
	return safeText([
		`Background sub-agent ${run.id} (${run.type}: ${run.description}) ${run.state}${run.verify && !run.verify.ok ? " — VERIFY FAILED" : ""}.`,
		`Usage: ${formatUsage(run.usage)}. Transcript: ${run.transcript ?? "not persisted"}.`,
		...(run.budget ? [budgetLine(run.budget)] : []),
		...(run.persistError ? [`Not persisted: ${run.persistError}.`] : []),
		...(run.contract ? [contractLine(run.contract)] : []),
		...(run.verify ? [verifyResultText(run.verify)] : []),
		...(run.receipt ? [receiptText(run.receipt)] : []),
		`Preview: ${preview || "(no text)"}`,
		`Call get_subagent_result with agent_id "${run.id}" for the full result.`,
	].join("\n"));
}

/** The progress report of a wait that timed out (the run keeps going). */
export function progressText(run: RunRecord, now: number = Date.now()): string {
	const since = ((now - run.lastEventAt) / 1000).toFixed(1);
	return `Sub-agent ${run.id} is still ${run.state}: ${run.activity}, ${counted(run.turns, "turn")}, ${counted(run.toolUses, "tool use")}, last event ${since}s ago. It keeps running; wait again or steer it.`;
}
