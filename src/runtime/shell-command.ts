/**
 * One shell command run on cadre's behalf (`worktree.setup`, a `verify` command): `/bin/sh -c` in a
 * directory, its output's tail kept, killed with whatever it started (its process group) at a
 * timeout. Plain data out; the callers decide what an exit code means.
 */
import { spawn } from "node:child_process";

/** Options of {@link runShell}. */
export interface ShellOptions {
	/** The directory the command runs in. */
	cwd: string;
	/** Variables added to this process's environment. */
	env?: Record<string, string>;
	/** Killed (with its process group) after this long. */
	timeoutMs: number;
	/** How much of the combined stdout and stderr to keep, from the end (default 8 KiB). */
	outputLimit?: number;
	/** Runs the command through this instead (a child's OS sandbox): the command and the whole environment the shell gets. */
	wrap?: ShellWrap;
}

/** A command and its environment as they are run instead (a child's sandbox wrap, made on first use). */
export type ShellWrap = (
	command: string,
	env: Readonly<Record<string, string | undefined>>,
) => { command: string; env: Record<string, string> } | Promise<{ command: string; env: Record<string, string> }>;

/** How a shell command ended. */
export interface ShellOutcome {
	/** The exit code, or null when it was killed or could not start. */
	exitCode: number | null;
	signal: string | null;
	timedOut: boolean;
	/** Why it could not start, or null. */
	startError: string | null;
	durationMs: number;
	/** The end of its combined output, trailing whitespace removed. */
	output: string;
}

/** Something that runs a shell command the way {@link runShell} does (a child's SSH workspace runs it there). */
export type ShellRunner = (command: string, options: ShellOptions) => Promise<ShellOutcome>;

/** How much output {@link runShell} keeps unless told (the end of it). */
export const DEFAULT_OUTPUT_LIMIT = 8 * 1024;

/** Runs `command` through `/bin/sh -c`; never rejects. */
export async function runShell(command: string, options: ShellOptions): Promise<ShellOutcome> {
	const started = performance.now();
	const limit = options.outputLimit ?? DEFAULT_OUTPUT_LIMIT;
	const env = { ...process.env, ...options.env };
	let run: { command: string; env: Record<string, string | undefined> };
	try {
		run = options.wrap ? await options.wrap(command, env) : { command, env };
	} catch (error) {
		const startError = `its sandbox could not be made: ${error instanceof Error ? error.message : String(error)}`;
		return { exitCode: null, signal: null, timedOut: false, startError, durationMs: performance.now() - started, output: "" };
	}
	return new Promise((resolve) => {
		let output = "";
		const keep = (chunk: Buffer) => {
			output = (output + chunk.toString("utf8")).slice(-limit);
		};
		const child = spawn("/bin/sh", ["-c", run.command], {
			cwd: options.cwd,
			detached: true,
			stdio: ["ignore", "pipe", "pipe"],
			env: run.env,
		});
		child.stdout.on("data", keep);
		child.stderr.on("data", keep);
		let timedOut = false;
		const timer = setTimeout(() => {
			timedOut = true;
			killGroup(child.pid);
		}, options.timeoutMs);
		const end = (exitCode: number | null, signal: string | null, startError: string | null) =>
			resolve({ exitCode, signal, timedOut, startError, durationMs: performance.now() - started, output: output.trimEnd() });
		child.on("error", (error) => {
			clearTimeout(timer);
			end(null, null, error.message);
		});
		child.on("close", (code, signal) => {
			clearTimeout(timer);
			// whatever the command left running in the background goes with it
			killGroup(child.pid);
			end(code, signal, null);
		});
	});
}

function killGroup(pid: number | undefined): void {
	if (pid === undefined) return;
	try {
		process.kill(-pid, "SIGKILL");
	} catch {
		// already gone
	}
}
