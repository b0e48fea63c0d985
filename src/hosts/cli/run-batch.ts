/**
 * `cadre run --batch FILE` (docs/cli-run.md "Batch"): one request per JSON line (`type`, `prompt`,
 * and the subagent tool's other parameters; the flags and `--request` give every line's
 * defaults), all started as background runs of one parent — so they go through its limiter,
 * settings `maxConcurrent` at a time — and one result line per run as each ends, then a summary.
 * A line that is not a request, or a request that is refused, is a result of its own: it never
 * stops the others.
 */
import { readFileSync } from "node:fs";
import { resolve as resolvePath } from "node:path";
import { safeLine } from "../../core/terminal-text.ts";
import { readFileUnder } from "../../files/read-confined.ts";
import type { Budget } from "../../core/budget.ts";
import type { SpawnRequest } from "../../resolve/types.ts";
import type { RunRecord } from "../../runtime/runs.ts";
import { answerLines, type ItemEnd, outDir, writeItemFile } from "./batch-answers.ts";
import { type CliIo, UsageError } from "./io.ts";
import { requestFromJson } from "./request-context.ts";
import { endNotes, exitCode, fullResult, refusalOf, type RunCommandOptions, type RunRefusal, type RunSession } from "./run-session.ts";
import { runTotals } from "./run-progress.ts";

/** The largest batch file read. */
const MAX_BATCH_BYTES = 16 * 1024 * 1024;

/** One line of a batch file: a request, or why it is not one. */
export type BatchItem = { line: number; request: SpawnRequest } | { line: number; invalid: string };

/** The items of batch text; `base` is every line's defaults (the flags and `--request`). */
export function parseBatch(text: string, base: SpawnRequest): BatchItem[] {
	const items: BatchItem[] = [];
	text.split("\n").forEach((raw, index) => {
		const line = index + 1;
		if (raw.trim() === "") return;
		try {
			const { type, ...values } = requestFromJson(raw, `line ${line}`, "type");
			if (typeof type !== "string" || type.trim() === "") throw new UsageError(`line ${line} has no "type" (the definition to run)`);
			const request: SpawnRequest = { ...base, ...values, subagent_type: type };
			if (typeof request.prompt !== "string" || request.prompt.trim() === "") throw new UsageError(`line ${line} has no "prompt" (the task)`);
			items.push({ line, request });
		} catch (error) {
			if (!(error instanceof UsageError)) throw error;
			items.push({ line, invalid: error.message });
		}
	});
	return items;
}

/** Read `file` (`-`: stdin) into items; a file that cannot be read or holds no request is a usage error. */
export function readBatch(file: string, base: SpawnRequest, io: CliIo): BatchItem[] {
	let text: string;
	if (file === "-") text = readFileSync(0, "utf8");
	else {
		// The user names the file: any path, but a regular file of bounded size.
		const read = readFileUnder(resolvePath(io.cwd, file), { confine: "any", root: io.cwd, maxBytes: MAX_BATCH_BYTES });
		if (!read.ok) throw new UsageError(`--batch ${file} ${read.reason}`);
		text = read.text;
	}
	const items = parseBatch(text, base);
	if (items.length === 0) throw new UsageError(`--batch ${file} holds no request (one JSON object per line: {"type": "…", "prompt": "…"})`);
	return items;
}

/** An item the batch budget left no room for. */
const NOT_STARTED = "not-started";

/**
 * A batch under `--budget` (ADR 0177): items start one by one as a slot of `maxConcurrent` frees
 * up; before each, what remains of the batch's pool is looked at — spent in a dimension, the item
 * and every later one is not started — and an item whose own budget leaves a dimension open gets a
 * share of what remains (divided among the slots that may run at once), so items run side by side
 * and the batch never spends more than its budget.
 */
async function budgetedBatch(items: BatchItem[], session: RunSession, runItem: (item: BatchItem, share: Partial<Budget>) => Promise<void>, skip: (item: BatchItem) => void): Promise<void> {
	const slots = Math.max(1, session.spawner.loaded()?.settings.maxConcurrent.value ?? 4);
	const running = new Set<Promise<void>>();
	let spent = false;
	for (const [index, item] of items.entries()) {
		while (running.size >= slots) await Promise.race(running);
		const remaining = session.spawner.registry.budgetRemaining();
		spent ||= (["tokens", "cost"] as const).some((dimension) => remaining[dimension] !== null && (remaining[dimension] as number) <= 0);
		if (spent && !("invalid" in item)) {
			skip(item);
			continue;
		}
		const ways = Math.max(1, Math.min(slots, items.length - index));
		const share: Partial<Budget> = {};
		for (const dimension of ["tokens", "cost"] as const) {
			const left = remaining[dimension];
			if (left !== null) share[dimension] = dimension === "tokens" ? Math.max(1, Math.floor(left / ways)) : left / ways;
		}
		const started: Promise<void> = runItem(item, share).finally(() => running.delete(started));
		running.add(started);
	}
	await Promise.all(running);
}

/** How each item ended. */
type Outcome = { line: number; status: string; run?: RunRecord; refused?: RunRefusal; error?: string };

function humanLine(outcome: Outcome, total: number, done: number): string {
	const head = `[${done}/${total}] line ${outcome.line}: ${outcome.status}`;
	const run = outcome.run;
	if (outcome.refused) return `${head} — ${[outcome.refused.message, ...outcome.refused.hints.map((hint) => `hint: ${hint}`)].join(" ")}`;
	if (!run) return `${head} — ${outcome.error ?? ""}`;
	const tail = run.state === "completed" ? "" : ` — ${run.error ?? ""}`;
	return `${head} ${run.id} (${run.type}: ${run.description}) · ${runTotals(run)}${tail}`;
}

function jsonLine(outcome: Outcome): string {
	if (outcome.run) return JSON.stringify({ line: outcome.line, ...fullResult(outcome.run) });
	if (outcome.refused) return JSON.stringify({ line: outcome.line, status: "refused", refused: outcome.refused });
	return JSON.stringify({ line: outcome.line, status: outcome.status, error: outcome.error });
}

/** An item's status line, then its answer (indented) or, with `--out`, the file it is in. */
function humanReport(outcome: Outcome, total: number, done: number, out: string | null, io: CliIo): void {
	const why = outcome.refused ? outcome.refused.message : (outcome.run?.error ?? outcome.error ?? null);
	const end: ItemEnd = { line: outcome.line, status: outcome.status, text: outcome.run?.state === "completed" ? (outcome.run.text ?? null) : null, why };
	const line = safeLine(humanLine(outcome, total, done));
	if (out !== null) {
		io.out(`${line} → ${safeLine(writeItemFile(out, end))}\n`);
		return;
	}
	io.out(`${line}\n`);
	for (const answer of answerLines(end, io.isTty)) io.out(`${answer}\n`);
}

/** Start every item, print each result as it ends and the summary; the exit code. */
export async function runBatch(items: BatchItem[], session: RunSession, opts: RunCommandOptions, io: CliIo): Promise<number> {
	const startedAt = Date.now();
	const outcomes: Outcome[] = [];
	const out = opts.out === undefined ? null : outDir(opts.out, io.cwd);
	const report = (outcome: Outcome) => {
		outcomes.push(outcome);
		session.progress.above(() => {
			if (opts.json) io.out(`${jsonLine(outcome)}\n`);
			else humanReport(outcome, items.length, outcomes.length, out, io);
			if (!opts.json && outcome.run) for (const note of endNotes(fullResult(outcome.run))) io.err(note);
		});
	};
	const runItem = async (item: BatchItem, share?: Partial<Budget>) => {
		if ("invalid" in item) return report({ line: item.line, status: "invalid", error: item.invalid });
		if (session.interrupted()) return report({ line: item.line, status: "stopped", error: "not started: Ctrl-C" });
		try {
			const { done } = await session.spawner.start(item.request, { background: true, budgetShare: share, onProgress: (run, event) => session.progress.child(run, event) });
			const run = await done;
			report({ line: item.line, status: run.state, run });
		} catch (error) {
			const refused = refusalOf(error);
			if (refused?.code === "budget-exhausted" && share) report({ line: item.line, status: NOT_STARTED, error: `not started: the batch budget is spent (${refused.message})` });
			else if (!refused) report({ line: item.line, status: "failed", error: error instanceof Error ? error.message : String(error) });
			else report({ line: item.line, status: "refused", refused });
		}
	};
	if (opts.budget === undefined) await Promise.all(items.map((item) => runItem(item)));
	else await budgetedBatch(items, session, runItem, (item) => report({ line: item.line, status: NOT_STARTED, error: "not started: the batch budget is spent" }));
	session.progress.close();
	const count = (status: string) => outcomes.filter((outcome) => outcome.status === status).length;
	const statuses = ["completed", "failed", "refused", "invalid", "stopped", "aborted", NOT_STARTED];
	const summary = {
		total: outcomes.length,
		...Object.fromEntries(statuses.map((status) => [status, count(status)])),
		durationMs: Date.now() - startedAt,
	};
	const notStarted = outcomes.filter((outcome) => outcome.status === NOT_STARTED).map((outcome) => outcome.line).sort((a, b) => a - b);
	if (opts.budget !== undefined) Object.assign(summary, { notStarted, budget: session.spawner.registry.budgetRemaining() });
	if (opts.json) io.out(`${JSON.stringify({ summary })}\n`);
	else {
		const parts = statuses.filter((status) => count(status) > 0).map((status) => `${count(status)} ${status}`);
		io.out(`cadre: ${outcomes.length} runs: ${parts.join(", ")} (${(summary.durationMs / 1000).toFixed(1)}s)\n`);
		if (notStarted.length > 0) io.out(`cadre: the batch budget was spent; not started: line${notStarted.length === 1 ? "" : "s"} ${notStarted.join(", ")}\n`);
	}
	return exitCode(
		outcomes.map((outcome) => outcome.status),
		session.interrupted(),
	);
}
