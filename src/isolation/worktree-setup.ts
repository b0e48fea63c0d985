/**
 * Worktree setup (ADR 0086): before the child starts, `worktree.include` brings ignored paths of the
 * parent into the worktree and `worktree.setup` runs a command there, bounded by a timeout. Setup
 * may only create ignored files: anything git would commit (a tracked file changed, an untracked one
 * created) would end up in the child's commit, so the spawn is refused instead, as it is when the
 * command fails or times out (fail closed, with its output).
 *
 * What the setup left — the include records and the stat data of every other ignored file it made —
 * is the worktree's setup state, kept in the worktree's git administrative directory
 * (`cadre-setup.json`), so finishing (and recovery after a crash, and the next run of a pooled
 * worktree) can tell the setup's files from what the child wrote.
 */
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { WorktreeSettings } from "../files/types.ts";
import { runShell } from "../runtime/shell-command.ts";
import { listPaths, parseStatus, watchedStates } from "./escape-check.ts";
import { changedStates, walkStates } from "./file-tree.ts";
import { readGitFile, runGit } from "./git.ts";
import { changedInclude, type IncludeOutcome, type IncludeRecord, syncInclude } from "./worktree-include.ts";
import { worktreeAdminDir } from "./worktree-lock.ts";

/** What setup left in a worktree. Plain, JSON-serialisable. */
export interface SetupState {
	include: IncludeRecord[];
	/** Ignored files the setup command created (outside the included paths): repository-relative path → stat data. */
	outputs: Record<string, string>;
	/** Their top-level ignored entries, as `git status --ignored=matching` lists them (`dist/`). */
	outputRoots: string[];
}

/** What setting a worktree up did, for the result. */
export interface SetupReport {
	include: IncludeOutcome[];
	/** The setup command, how long it took and the end of its output; null without one. */
	command: { command: string; ms: number; output: string } | null;
	ms: number;
}

export type SetupOutcome = { ok: true; state: SetupState; report: SetupReport } | { ok: false; message: string; output: string };

const STATE_FILE = "cadre-setup.json";
/** The most a setup state file may hold (it lists every included path). */
const MAX_STATE_BYTES = 64 * 1024 * 1024;
const OUTPUT_LIMIT = 8 * 1024;

/** Whether settings ask for any setup. */
export function wantsSetup(settings: Pick<WorktreeSettings, "include" | "setup">): boolean {
	return (settings.include?.length ?? 0) > 0 || settings.setup !== undefined;
}

/** The setup state recorded for a worktree, or null (none, or unreadable). */
export function readSetupState(worktreePath: string): SetupState | null {
	const admin = worktreeAdminDir(worktreePath);
	if (!admin) return null;
	try {
		const parsed = JSON.parse(readGitFile(join(admin, STATE_FILE), MAX_STATE_BYTES) ?? "null") as SetupState;
		return Array.isArray(parsed.include) && typeof parsed.outputs === "object" ? parsed : null;
	} catch {
		return null;
	}
}

/** Records a worktree's setup state in its administrative directory (none: forgets it). */
export function writeSetupState(worktreePath: string, state: SetupState | null): void {
	const admin = worktreeAdminDir(worktreePath);
	if (!admin) return;
	if (state) writeFileSync(join(admin, STATE_FILE), JSON.stringify(state));
	else rmSync(join(admin, STATE_FILE), { force: true });
}

/** Options of `setUpWorktree`. */
export interface SetUpOptions {
	parentRoot: string;
	worktreePath: string;
	runId: string;
	settings: Pick<WorktreeSettings, "include" | "setup">;
	/** What the worktree held before (a pooled worktree's earlier setup), or null. */
	previous: SetupState | null;
}

/** Includes, then the setup command, then the check that only ignored files came of it. */
export async function setUpWorktree(options: SetUpOptions): Promise<SetupOutcome> {
	const started = performance.now();
	const { worktreePath, settings } = options;
	const include: IncludeRecord[] = [];
	const outcomes: IncludeOutcome[] = [];
	try {
		for (const entry of settings.include ?? []) {
			const previous = options.previous?.include.find((r) => r.path === entry.path && r.mode === entry.mode) ?? null;
			const { record, outcome } = syncInclude(options.parentRoot, worktreePath, entry, previous);
			include.push(record);
			outcomes.push(outcome);
		}
	} catch (error) {
		return { ok: false, message: `worktree.include could not copy into ${worktreePath}: ${(error as Error).message}`, output: "" };
	}
	let command: SetupReport["command"] = null;
	if (settings.setup) {
		const ran = await runSetupCommand(settings.setup, worktreePath, options);
		if (!ran.ok) return { ok: false, message: ran.message, output: ran.output };
		command = { command: settings.setup.command, ms: ran.ms, output: ran.output };
	}
	const status = await runGit(["status", "--porcelain=v2", "-z", "--untracked-files=all", "--ignored=matching", "--no-renames"], { cwd: worktreePath });
	if (status.code !== 0) return { ok: false, message: `git status failed in ${worktreePath} after setup: ${status.stderr.trim()}`, output: "" };
	const entries = parseStatus(status.stdout).entries;
	const committable = entries.filter((e) => e.kind !== "!").map((e) => e.path);
	const linked = (settings.include ?? []).filter((i) => i.mode === "symlink" && committable.includes(i.path)).map((i) => i.path);
	if (linked.length > 0) {
		return {
			ok: false,
			message:
				`worktree.include symlinks ${linked.join(", ")}, but git does not ignore a symlink there (a .gitignore pattern that ends in / ` +
				`matches directories only), so the child's commit would include it. Ignore ${linked.map((p) => `/${p}`).join(", ")} without the trailing slash, or copy it instead.`,
			output: "",
		};
	}
	if (committable.length > 0) {
		return {
			ok: false,
			message:
				`worktree setup left files git would commit in the worktree (${listPaths(committable, 10)}), so they would count as the child's work. ` +
				"Setup may only create ignored files: add them to .gitignore (or .git/info/exclude), include only ignored paths, " +
				"and make the setup command leave tracked files as they are (npm ci rather than npm install).",
			output: command?.output ?? "",
		};
	}
	const outputRoots = entries.filter((e) => e.kind === "!" && !coveredBy(include, e.path)).map((e) => e.path);
	const outputs: Record<string, string> = {};
	for (const root of outputRoots) {
		const rel = root.replace(/\/$/, "");
		for (const [path, state] of walkStates(join(worktreePath, rel), rel)) outputs[path] = state;
	}
	const state: SetupState = { include, outputs, outputRoots };
	writeSetupState(worktreePath, state);
	return { ok: true, state, report: { include: outcomes, command, ms: performance.now() - started } };
}

/**
 * The parent's files the included paths came from, as the escape check records them (`w <state>`),
 * so a write that reaches them — through the symlink of a `symlink: true` entry, or any other way —
 * is reported. Copied entries take the states their copy recorded (no second walk); symlinked ones
 * are walked now.
 */
export function watchedEntries(parentRoot: string, state: SetupState): Record<string, string> {
	const entries: Record<string, string> = {};
	for (const record of state.include) {
		if (record.mode === "symlink") {
			for (const [path, value] of watchedStates(parentRoot, [record.path])) entries[path] = value;
			continue;
		}
		for (const [path, value] of Object.entries(record.files)) entries[path] = `w ${value.slice(0, value.indexOf("|"))}`;
	}
	return entries;
}

/** Whether a status path (`node_modules/`, `a/b.txt`) is an included path or below one. */
function coveredBy(include: IncludeRecord[], statusPath: string): boolean {
	const path = statusPath.replace(/\/$/, "");
	return include.some((r) => path === r.path || path.startsWith(`${r.path}/`));
}

/**
 * The paths of the setup's files the child changed, created below them or removed, and the ignored
 * files that are no part of the setup (`ignored`: the worktree's ignored entries, as
 * `git status --ignored=matching` lists them). Both mean the worktree holds something git does not
 * commit.
 */
export function setupChanges(worktreePath: string, state: SetupState | null, ignored: string[]): { changed: string[]; other: string[] } {
	if (!state) return { changed: [], other: ignored };
	const changed: string[] = [];
	for (const record of state.include) changed.push(...changedInclude(worktreePath, record));
	const now = new Map<string, string>();
	for (const root of state.outputRoots) {
		const rel = root.replace(/\/$/, "");
		walkStates(join(worktreePath, rel), rel, now);
	}
	changed.push(...changedStates(Object.entries(state.outputs), now));
	const roots = new Set(state.outputRoots);
	const other = ignored.filter((entry) => !roots.has(entry) && !coveredBy(state.include, entry));
	return { changed: [...new Set(changed)].sort(), other };
}

/** Runs the setup command through the shell in the worktree, killed (with what it started) at the timeout. */
async function runSetupCommand(
	setup: NonNullable<WorktreeSettings["setup"]>,
	cwd: string,
	options: SetUpOptions,
): Promise<{ ok: true; ms: number; output: string } | { ok: false; message: string; output: string }> {
	const ran = await runShell(setup.command, {
		cwd,
		timeoutMs: setup.timeoutMs,
		outputLimit: OUTPUT_LIMIT,
		env: { CADRE_WORKTREE: cwd, CADRE_PARENT_ROOT: options.parentRoot, CADRE_RUN_ID: options.runId },
	});
	const fail = (why: string) =>
		({ ok: false, message: `worktree.setup \`${setup.command}\` ${why}; the spawn is refused and its worktree removed.`, output: ran.output }) as const;
	if (ran.startError !== null) return fail(`could not start (${ran.startError})`);
	if (ran.timedOut) return fail(`did not finish within ${Math.round(setup.timeoutMs / 1000)} s`);
	if (ran.exitCode !== 0) return fail(ran.signal ? `was killed by ${ran.signal}` : `failed with exit code ${ran.exitCode}`);
	return { ok: true, ms: ran.durationMs, output: ran.output };
}
