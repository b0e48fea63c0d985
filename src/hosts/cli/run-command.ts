/**
 * `cadre run TYPE "task" [flags]`, `cadre run --resume ID "task"`, `cadre run --batch FILE`
 * (docs/cli-run.md, ADR 0090): children run headlessly through pi's SDK exactly as the extension
 * spawns them — a parent pi session for the directory, built as `pi -p` builds one there
 * (`createHeadlessParent`), and the extension's own spawner over it (src/hosts/spawn/spawner.ts):
 * the same loading, resolution, prompt, tools, guard, isolation, transcripts, run records and
 * results. The child's final text goes to stdout (`--json`: the result object), progress to stderr.
 * Exit 0 completed, 1 failed or refused, 130 stopped by Ctrl-C, 2 usage.
 */
import { resolve as resolvePath } from "node:path";
import { safeLine, safeText } from "../../core/terminal-text.ts";
import type { SpawnRequest } from "../../resolve/types.ts";
import { spawnReader } from "../../resolve/spawn-reader.ts";
import { createHeadlessParent, type HeadlessParent, transcriptDir } from "../../runtime/pi-sdk.ts";
import type { loadRun as LoadRun } from "../../runtime/run-reader.ts";
import { recordPath } from "../../runtime/run-store.ts";
import { type RunResult, runResult } from "../../runtime/result.ts";
import type { RunRecord } from "../../runtime/runs.ts";
import { WorktreeRefusedError } from "../../isolation/worktree-hooks.ts";
import { SpawnRefused } from "../spawn/plan.ts";
import { createSpawner, type Spawner } from "../spawn/spawner.ts";
import { telemetryConfig } from "../../telemetry/config.ts";
import { createTelemetry, type Telemetry } from "../../telemetry/telemetry.ts";
import { EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, type CliIo, UsageError } from "./io.ts";
import type { RequestFlagOptions } from "./main.ts";
import { cliDirs, parentFactFlags, parseRequestFlags } from "./request-context.ts";
import { createProgress, type ProgressReporter, runTotals } from "./run-progress.ts";

/** Options of `cadre run`: the request flags plus its own. */
export interface RunCommandOptions extends RequestFlagOptions {
	verbose?: boolean;
	events?: boolean;
	/** A JSON-lines file of requests. */
	batch?: string;
	/** The id of a finished run to continue. */
	resume?: string;
}

/** A run id as cadre makes them (a git ref component; also a record's file name). */
const RUN_ID = /^[a-z0-9][a-z0-9-]{0,63}$/;

/** The CLI has no parent model: the child's whole text is the result. */
const UNCAPPED = Number.POSITIVE_INFINITY;

/** A refused spawn as `cadre run` reports it. */
export interface RunRefusal {
	code: string;
	message: string;
	hints: string[];
}

/** The refusal an error from `start` is, or null when it is something else. */
export function refusalOf(error: unknown): RunRefusal | null {
	if (error instanceof SpawnRefused) return { code: error.code, message: error.message, hints: error.hints };
	if (error instanceof WorktreeRefusedError) {
		return { code: "worktree-unavailable", message: safeText(`Spawn refused (worktree-unavailable): ${error.failure.message}`), hints: [safeText(error.failure.hint)] };
	}
	const message = error instanceof Error ? error.message : String(error);
	const match = /^Spawn refused \(([a-z-]+)\)/.exec(message);
	return match ? { code: match[1] as string, message: safeText(message), hints: [] } : null;
}

/** The refusal on stderr: its text and what to do. */
export function refusalLines(refusal: RunRefusal): string {
	return safeText(`cadre: ${refusal.message}\n${refusal.hints.map((hint) => `hint: ${hint}\n`).join("")}`);
}

/** Everything one invocation runs with. */
export interface RunSession {
	parent: HeadlessParent;
	spawner: Spawner;
	/** The invocation's traces (ADR 0145): off unless an OTLP endpoint is set; continues `TRACEPARENT`. */
	telemetry: Telemetry;
	progress: ProgressReporter;
	/** Where this host's run records are (and `--resume` looks): `<agentDir>/cadre/transcripts`. */
	recordsDir: string;
	/** Ctrl-C was pressed. */
	interrupted(): boolean;
	close(): Promise<void>;
}

/** The run `id` and the runs it resumed, from this host's records (ADR 0090), nearest first. */
function storedChain(loadRun: typeof LoadRun, recordsDir: string, id: string): RunRecord[] {
	const chain: RunRecord[] = [];
	for (let next: string | null = id; next !== null && chain.length < 1000; ) {
		if (!RUN_ID.test(next) || chain.some((run) => run.id === next)) break;
		const loaded = loadRun(recordPath(recordsDir, next));
		if (!loaded.ok) break;
		chain.push(loaded.run);
		next = loaded.run.resumeOf;
	}
	return chain;
}

/** Ctrl-C as `cadre run` takes it: noted, and every run stopped once there are runs. */
function interruption(io: CliIo): { interrupted(): boolean; onStop(stop: () => void): void; dispose(): void } {
	let interrupted = false;
	let stop = () => {};
	const dispose = io.onInterrupt?.(() => {
		interrupted = true;
		io.err("\ncadre: stopping (Ctrl-C again quits at once)\n");
		stop();
	});
	return {
		interrupted: () => interrupted,
		onStop(next) {
			stop = next;
			if (interrupted) next();
		},
		dispose: () => dispose?.(),
	};
}

/** pi's startup diagnostics and what the parent could not load, on stderr. */
function parentNotes(parent: HeadlessParent, io: CliIo): void {
	for (const diagnostic of parent.diagnostics) io.err(`pi: ${diagnostic.type}: ${safeLine(diagnostic.message)}\n`);
	if (parent.untrustedResources) {
		io.err("cadre: this project is not trusted: its .pi/ settings, extensions, skills and prompts are not loaded (trust the folder in pi, or pass --trust-project)\n");
	}
}

/**
 * The parent for `--cwd` and its spawner — the extension's, over the headless parent, with the
 * `--parent-*` flags applied. Ctrl-C stops every run like `/subagents stop` (recorded stopped,
 * worktrees committed).
 */
export async function openRunSession(opts: RunCommandOptions, io: CliIo): Promise<RunSession> {
	const cwd = resolvePath(io.cwd, opts.cwd ?? ".");
	if (!spawnReader.isDirectory(cwd)) throw new UsageError(`--cwd ${cwd} is not a directory`);
	const { agentDir, homeDir } = cliDirs(io);
	const flags = parentFactFlags(opts);
	const interrupt = interruption(io);
	const parent = await createHeadlessParent({ cwd, agentDir, trustProject: opts.trustProject === true }).catch((error: unknown) => {
		interrupt.dispose();
		throw error;
	});
	parentNotes(parent, io);
	const recordsDir = transcriptDir(parent.ctx, agentDir);
	const progress = createProgress({ io, verbose: opts.verbose === true, events: opts.events === true, runs: () => spawner.registry.own() });
	const telemetry = createTelemetry();
	const spawner = createSpawner({
		pi: parent.pi,
		ctx: () => parent.ctx,
		promptOptions: () => parent.ctx.getSystemPromptOptions(),
		agentDir,
		homeDir,
		// Only a resume reads records back (and loads their schema's validator).
		earlier: opts.resume && RUN_ID.test(opts.resume) ? storedChain((await import("../../runtime/run-reader.ts")).loadRun, recordsDir, opts.resume) : [],
		childExtensions: async () => parent.childExtensions(spawner.loaded()?.settings.childExtensions.exclude ?? []),
		facts: (facts) => ({
			...facts,
			...(flags.model !== undefined ? { model: flags.model } : {}),
			...(flags.thinking !== undefined ? { thinking: flags.thinking } : {}),
			...(flags.activeTools !== undefined ? { activeTools: flags.activeTools } : {}),
		}),
		emit: (event, payload) => progress.lifecycle(event, payload),
		telemetry: telemetry.runs(),
	});
	// The settings as loaded for the parent's cwd and trust: `telemetry.otlp` only from the user's or a trusted project's.
	await telemetry.enable(telemetryConfig(io.env, spawner.loaded()?.settings.telemetry.otlp ?? null));
	telemetry.continueTrace(io.env.TRACEPARENT);
	interrupt.onStop(() => void spawner.registry.stopAll());
	return {
		parent,
		spawner,
		telemetry,
		progress,
		recordsDir,
		interrupted: interrupt.interrupted,
		async close() {
			progress.close();
			interrupt.dispose();
			// Every run has ended: what is buffered is exported before the process exits.
			await telemetry.shutdown();
			await parent.dispose();
		},
	};
}

/** The result object `--json` prints: the run's whole result, its text uncapped. */
export function fullResult(run: RunRecord): RunResult {
	return runResult(run, UNCAPPED);
}

/** The line `cadre run` ends with on a terminal or with `--verbose`. */
function summaryLine(run: RunRecord): string {
	return `cadre: ${run.id} ${run.state}${run.limitReached ? " at its max_turns limit" : ""} · ${runTotals(run)}`;
}

/** What a finished run writes on stderr whatever the flags: its warnings, its worktree, a record not written. */
export function endNotes(result: RunResult): string[] {
	const notes: string[] = [];
	for (const warning of result.warnings) notes.push(`cadre: warning: ${warning}`);
	const summary = (result.isolation as { summary?: unknown } | null)?.summary;
	if (typeof summary === "string" && summary) notes.push(`cadre: ${summary}`);
	if (result.persistError) notes.push(`cadre: not persisted: ${result.persistError}`);
	return notes.map((note) => `${safeLine(note)}\n`);
}

/** The exit code of runs that ended (or of the Ctrl-C that stopped them). */
export function exitCode(states: readonly string[], interrupted: boolean): number {
	if (interrupted) return EXIT_INTERRUPTED;
	return states.every((state) => state === "completed") ? EXIT_OK : EXIT_FAILED;
}

/** The one request of `cadre run [TYPE] [task]` / `--resume ID [TYPE] [task]`. */
function singleRequest(positionals: string[], opts: RunCommandOptions): SpawnRequest {
	const request = parseRequestFlags(opts);
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
		io.err(refusalLines(refusal));
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
