/**
 * `cadre run TYPE "task" [flags]`, `cadre run --resume ID "task"`, `cadre run --batch FILE`
 * (docs/cli-run.md, ADR 0090): children run headlessly through pi's SDK exactly as the extension
 * spawns them — a parent pi session for the directory, built as `pi -p` builds one there
 * (`createHeadlessParent`), and the extension's own spawner over it (src/hosts/spawn/spawner.ts):
 * the same loading, resolution, prompt, tools, guard, isolation, transcripts, run records and
 * results. The child's final text goes to stdout (`--json`: the result object), progress to stderr.
 * Exit 0 completed, 1 failed or refused, 130 stopped by Ctrl-C, 2 usage.
 */
import { safeLine, safeText } from "../../core/terminal-text.ts";
import type { SpawnRequest } from "../../resolve/types.ts";
import type { RunRecord } from "../../runtime/runs.ts";
import { SpawnRefused } from "../spawn/plan.ts";
import type { Spawner } from "../spawn/spawner.ts";
import { EXIT_FAILED, EXIT_INTERRUPTED, type CliIo, UsageError } from "./io.ts";
import { parseBudgetFlag } from "./budget-flag.ts";
import { parseRequestFlags } from "./request-context.ts";
import { errWidth } from "./width.ts";
import { runTotals } from "./run-progress.ts";
import { endNotes, exitCode, fullResult, openRunSession, RUN_ID, type RunCommandOptions, refusalLines, refusalOf, type RunSession } from "./run-session.ts";

export type { RunCommandOptions } from "./run-session.ts";

/** The line `cadre run` ends with on a terminal or with `--verbose`. */
function summaryLine(run: RunRecord): string {
	return `cadre: ${run.id} ${run.state}${run.limitReached ? " at its max_turns limit" : ""} · ${runTotals(run)}`;
}

/** The one request of `cadre run [TYPE] [task]` / `--resume ID [TYPE] [task]`. */
function singleRequest(positionals: string[], opts: RunCommandOptions): SpawnRequest {
	const request = parseRequestFlags(opts);
	if (opts.budget !== undefined) request.budget = parseBudgetFlag(opts.budget);
	const [first, second, ...rest] = positionals;
	if (rest.length > 0) throw new UsageError(`cadre run takes TYPE and one task; put the task in quotes (got ${positionals.length} arguments)`);
	let type: string | undefined;
	let task: string | undefined;
	if (opts.resume !== undefined) {
		if (!RUN_ID.test(opts.resume)) throw new UsageError(`--resume ${opts.resume} is not a run id (like explore-k3x9qa)`);
		[type, task] = second === undefined ? [undefined, first] : [first, second];
		request.resume = opts.resume;
	} else {
		if (first === undefined) throw new UsageError('cadre run needs a TYPE and a task: cadre run TYPE "task" (or --resume ID, --batch FILE)');
		[type, task] = [first, second];
	}
	if (type !== undefined) request.subagent_type = type;
	if (task !== undefined) request.prompt = task;
	if (typeof request.prompt !== "string" || request.prompt.trim() === "") {
		throw new UsageError('cadre run needs the task: cadre run TYPE "task" (or "prompt" in --request)');
	}
	return request;
}

/** Run one child (or continue one) and report it. */
async function runOne(request: SpawnRequest, session: RunSession, opts: RunCommandOptions, io: CliIo): Promise<number> {
	let started: Awaited<ReturnType<Spawner["start"]>>;
	try {
		const id = request.resume;
		if (typeof id === "string" && !session.spawner.registry.get(id)) {
			throw new SpawnRefused("resume-refused", `Spawn refused (resume-refused): no run ${id} is recorded in ${session.recordsDir}.`, [
				"cadre run continues the runs cadre run started (their ids are in its output and in --json); a run of a pi session is resumed in that session",
			]);
		}
		started = await session.spawner.start(request, { background: false, onProgress: (run, event) => session.progress.child(run, event) });
	} catch (error) {
		const refusal = refusalOf(error);
		if (!refusal) throw error;
		session.progress.close();
		if (opts.json) io.out(`${JSON.stringify({ type: request.subagent_type ?? null, status: "refused", refused: refusal }, null, 2)}\n`);
		io.err(refusalLines(refusal, errWidth(io)));
		return session.interrupted() ? EXIT_INTERRUPTED : EXIT_FAILED;
	}
	const run = await started.done;
	session.progress.close();
	const result = fullResult(run);
	if (opts.json) io.out(`${JSON.stringify(result, null, 2)}\n`);
	else if (run.state === "completed" && run.text) {
		// Exactly what the child said when piped; escaped on a terminal (ADR 0075).
		const text = io.isTty ? safeText(run.text) : run.text;
		io.out(text.endsWith("\n") ? text : `${text}\n`);
	}
	if (!opts.json && (io.errTty || opts.verbose)) io.err(`${safeLine(summaryLine(run))}\n`);
	if (run.state !== "completed") io.err(`${safeLine(`cadre: ${run.id} ${run.state}: ${run.error ?? "no final answer"}`)}\n`);
	for (const note of endNotes(result)) io.err(note);
	return exitCode([run.state], session.interrupted());
}

/** `cadre run …`: the exit code. */
export async function runRun(positionals: string[], opts: RunCommandOptions, io: CliIo): Promise<number> {
	if (opts.out !== undefined && opts.batch === undefined) throw new UsageError("--out DIR goes with --batch FILE: it writes each item's answer to a file");
	if (opts.batch !== undefined) {
		if (positionals.length > 0 || opts.resume !== undefined) throw new UsageError("cadre run --batch FILE takes no TYPE, task or --resume: each line names its own");
		const { readBatch, runBatch } = await import("./run-batch.ts");
		const items = readBatch(opts.batch, parseRequestFlags(opts), io);
		const session = await openRunSession(opts, io);
		try {
			return await session.telemetry.workflow("cadre.batch", () => runBatch(items, session, opts, io));
		} finally {
			await session.close();
		}
	}
	const request = singleRequest(positionals, opts);
	const session = await openRunSession(opts, io);
	try {
		if (session.interrupted()) return EXIT_INTERRUPTED;
		return await runOne(request, session, opts, io);
	} finally {
		await session.close();
	}
}
