/**
 * One invocation of `cadre run` (ADR 0090), shared by a single run (run-command.ts) and a batch
 * (run-batch.ts): its options, the headless parent session and the spawner over it, Ctrl-C, a
 * refusal as reported, and what a finished run writes and exits with.
 */
import { resolve as resolvePath } from "node:path";
import { safeLine, safeText } from "../../core/terminal-text.ts";
import { wrapLine } from "../../core/wrap.ts";
import { closeSandboxWhenIdle } from "../../sandbox/manager.ts";
import { telemetryConfig } from "../../telemetry/config.ts";
import { createTelemetry, type Telemetry } from "../../telemetry/telemetry.ts";
import { spawnReader } from "../../resolve/spawn-reader.ts";
import { createHeadlessParent, type HeadlessParent } from "../../runtime/pi/headless-parent.ts";
import { transcriptDir } from "../../runtime/pi/parent-session.ts";
import type { loadRun as LoadRun } from "../../runtime/run-reader.ts";
import { recordPath } from "../../runtime/run-store.ts";
import { type RunResult, runResult } from "../../runtime/result.ts";
import type { RunRecord } from "../../runtime/runs.ts";
import { WorktreeRefusedError } from "../../isolation/worktree-hooks.ts";
import { SpawnRefused } from "../spawn/plan.ts";
import { createSpawner, type Spawner } from "../spawn/spawner.ts";
import { UNLIMITED } from "../../core/budget.ts";
import { parseBudgetFlag } from "./budget-flag.ts";
import { EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, type CliIo, UsageError } from "./io.ts";
import type { RequestFlagOptions } from "./options.ts";
import { cliDirs, parentFactFlags } from "./request-context.ts";
import { createProgress, type ProgressReporter } from "./run-progress.ts";

/** Options of `cadre run`: the request flags plus its own. */
export interface RunCommandOptions extends RequestFlagOptions {
	verbose?: boolean;
	events?: boolean;
	/** A JSON-lines file of requests. */
	batch?: string;
	/** With `--batch`: a folder to write each item's answer to (`line-<n>.md`) instead of stdout. */
	out?: string;
	/** The id of a finished run to continue. */
	resume?: string;
	/** `tokens=…,cost=…,time=…`: the run's budget, or with `--batch` the whole batch's (issue 22). */
	budget?: string;
}

/** A run id as cadre makes them (a git ref component; also a record's file name). */
export const RUN_ID = /^[a-z0-9][a-z0-9-]{0,63}$/;

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
export function refusalLines(refusal: RunRefusal, width: number | null = null): string {
	const lines = [`cadre: ${refusal.message}`, ...refusal.hints.map((hint) => `hint: ${hint}`)];
	return lines.flatMap((line) => wrapLine(safeText(line), width, "  ")).map((line) => `${line}\n`).join("");
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
		// With --batch, --budget is the pool every item reserves from (ADR 0177).
		sessionBudget: opts.batch !== undefined && opts.budget !== undefined ? { ...UNLIMITED, ...parseBudgetFlag(opts.budget) } : undefined,
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
			await closeSandboxWhenIdle();
		},
	};
}

/** The result object `--json` prints: the run's whole result, its text uncapped. */
export function fullResult(run: RunRecord): RunResult {
	return runResult(run, UNCAPPED);
}

/** What a finished run writes on stderr whatever the flags: its warnings, its worktree, a record not written. */
export function endNotes(result: RunResult): string[] {
	const notes: string[] = [];
	// Each warning is already `[file:line:col ]warning code message`: its severity is said once.
	for (const warning of result.warnings) notes.push(`cadre: ${warning}`);
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

