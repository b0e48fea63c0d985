/**
 * A small wrapper around the real `git` binary (`execFile`, never a shell) and the git facts cadre
 * needs about a parent's directory: repository root, current branch, HEAD. The stable facts (root,
 * git directories, the cwd's place inside the repository) are detected once per cwd and cached
 * (spec 07: "detect git facts once per parent cwd and cache them"); HEAD and the branch move while
 * a session runs, so they are re-read from `.git` files on every call, without a subprocess — unless
 * the repository keeps its refs elsewhere (reftable), where git itself is asked (ADR 0004).
 */
import { type ChildProcess, execFile, execFileSync } from "node:child_process";
import { realpathSync, statSync } from "node:fs";
import { setPriority } from "node:os";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { readFileUnder } from "../files/read-confined.ts";
import { statOf } from "../runtime/stat-key.ts";
import { realOrNearest } from "./file-tree.ts";

/** What one git invocation produced. */
export interface GitResult {
	/** The exit code (0 success). */
	code: number;
	stdout: string;
	stderr: string;
}

/** Options of one git invocation. */
export interface GitOptions {
	/** Directory git runs in (`-C` is not used so relative paths in arguments mean this directory). */
	cwd: string;
	/** Extra environment variables layered over `process.env`. */
	env?: Record<string, string>;
	/** A background job (the worktree pool's refill): lower CPU priority, and it never keeps the process alive. */
	background?: boolean;
}

/** Thrown when the `git` binary cannot be started at all (not installed, not on PATH). */
export class GitMissingError extends Error {
	constructor(cause: string) {
		super(`git is not installed or not on PATH (${cause})`);
		this.name = "GitMissingError";
	}
}

/**
 * The binary to run: `CADRE_GIT` when set (tests use it to simulate a missing git), else `git`.
 */
function gitBinary(): string {
	return process.env.CADRE_GIT || "git";
}

/**
 * What every git cadre runs gets in its environment. GIT_OPTIONAL_LOCKS=0: cadre's `git status`
 * never takes the index lock a user's own git command (or a sibling spawn) may need at the same moment.
 */
const GIT_ENV = { GIT_TERMINAL_PROMPT: "0", GIT_OPTIONAL_LOCKS: "0", LC_ALL: "C" };

/**
 * Runs `git args…` in `options.cwd` and resolves with its exit code and output. Never rejects for a
 * nonzero exit; rejects with `GitMissingError` when git cannot be started.
 */
export function runGit(args: string[], options: GitOptions): Promise<GitResult> {
	return new Promise((resolvePromise, reject) => {
		const child = execFile(
			gitBinary(),
			args,
			{
				cwd: options.cwd,
				env: { ...process.env, ...GIT_ENV, ...options.env },
				maxBuffer: 256 * 1024 * 1024,
				encoding: "utf8",
				windowsHide: true,
			},
			(error, stdout, stderr) => {
				if (error && typeof error.code === "string") {
					// ENOENT (binary missing) or EACCES; a missing cwd also surfaces as ENOENT.
					if (error.code === "ENOENT" && !directoryExists(options.cwd)) {
						resolvePromise({ code: 128, stdout: "", stderr: `directory does not exist: ${options.cwd}` });
						return;
					}
					reject(new GitMissingError(error.code));
					return;
				}
				const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
				resolvePromise({ code, stdout, stderr });
			},
		);
		if (options.background) inBackground(child);
	});
}

/** Lowers a child's CPU priority and lets the process exit while it runs. */
function inBackground(child: ChildProcess): void {
	try {
		if (child.pid !== undefined) setPriority(child.pid, 10);
	} catch {
		// not permitted here: it runs at normal priority
	}
	child.unref();
	for (const stream of [child.stdout, child.stderr]) (stream as { unref?: () => void } | null)?.unref?.();
}

function directoryExists(path: string): boolean {
	try {
		return realpathSync(path) !== "";
	} catch {
		return false;
	}
}

/** Runs git and returns stdout, or throws an `Error` carrying git's stderr on a nonzero exit. */
export async function gitOrThrow(args: string[], options: GitOptions): Promise<string> {
	const result = await runGit(args, options);
	if (result.code !== 0) {
		throw new Error(`git ${args[0] ?? ""} failed: ${firstLine(result.stderr) || `exit ${result.code}`}`);
	}
	return result.stdout;
}

/** The first nonempty line of git's output, for messages. */
export function firstLine(text: string): string {
	return (
		text
			.split("\n")
			.map((line) => line.trim())
			.find((line) => line !== "") ?? ""
	);
}

/** The stable facts of a directory inside a git repository. */
export interface RepoFacts {
	/** Absolute real path of the working tree's top level. */
	root: string;
	/** Absolute path of this working tree's git directory (`.git`, or `.git/worktrees/<name>`). */
	gitDir: string;
	/** Absolute path of the repository's common git directory (refs, objects, config). */
	commonDir: string;
	/** The cwd relative to `root` with `/` separators; `""` at the top level. */
	prefix: string;
	/** Whether this is a linked working tree (`git worktree add`), not the repository's main one. */
	linked: boolean;
}

/** Repository facts plus where HEAD is right now. */
export interface GitFacts extends RepoFacts {
	/** The checked-out branch name (`main`), or null when HEAD is detached. */
	branch: string | null;
	/** The commit HEAD points at, or null in a repository without commits. */
	head: string | null;
}

/** Why a directory has no git facts. */
export type GitFactsFailure =
	| { ok: false; code: "git-missing"; message: string }
	| { ok: false; code: "not-a-repository"; message: string };

const repoCache = new Map<string, Promise<RepoFacts | GitFactsFailure>>();
/** Directories found outside any repository: the answer, and the `.git` paths whose absence keeps it. */
const notRepository = new Map<string, { failure: GitFactsFailure; markers: string[] }>();

/** Forgets every cached fact (tests, or after the user moved a repository). */
export function clearGitFactsCache(): void {
	repoCache.clear();
	notRepository.clear();
}

/** `<dir>/.git` for `dir` and every directory above it: where a repository holding `dir` would show up. */
function gitMarkers(dir: string): string[] {
	const markers: string[] = [];
	for (let at = dir; ; at = dirname(at)) {
		markers.push(join(at, ".git"));
		if (dirname(at) === at) return markers;
	}
}

/** Whether none of `paths` exists (an error other than "not there" counts as existing). */
function noneExist(paths: readonly string[]): boolean {
	return paths.every((path) => statOf(path) === "ENOENT");
}

/**
 * The repository facts of `cwd`, detected with one `git rev-parse` the first time and cached per
 * cwd afterwards. "Not a repository" is kept while no `.git` exists in `cwd` or above it (checked
 * by a synchronous stat of each on every call, ADR 0198; issue 28: a spawn outside a repository
 * runs no git), so `git init` there is noticed; it is not kept when `GIT_DIR` or `GIT_WORK_TREE`
 * point git elsewhere. "git missing" is never kept.
 */
export async function repoFacts(cwd: string): Promise<{ ok: true; facts: RepoFacts } | GitFactsFailure> {
	const key = resolve(cwd);
	const known = notRepository.get(key);
	if (known) {
		if (noneExist(known.markers)) return known.failure;
		notRepository.delete(key);
	}
	let pending = repoCache.get(key);
	if (!pending) {
		pending = detectRepoFacts(key);
		repoCache.set(key, pending);
	}
	const result = await pending;
	if ("ok" in result) {
		if (repoCache.get(key) === pending) repoCache.delete(key);
		if (result.code === "not-a-repository" && !process.env.GIT_DIR && !process.env.GIT_WORK_TREE) notRepository.set(key, { failure: result, markers: gitMarkers(key) });
		return result;
	}
	return { ok: true, facts: result };
}

async function detectRepoFacts(cwd: string): Promise<RepoFacts | GitFactsFailure> {
	let result: GitResult;
	try {
		result = await runGit(["rev-parse", "--show-toplevel", "--absolute-git-dir", "--git-common-dir"], { cwd });
	} catch (error) {
		return { ok: false, code: "git-missing", message: (error as Error).message };
	}
	const lines = result.stdout.split("\n").filter((line) => line !== "");
	if (result.code !== 0 || lines.length < 3) {
		const why = firstLine(result.stderr) || "git rev-parse found no working tree";
		return { ok: false, code: "not-a-repository", message: `${cwd} is not inside a git working tree (${why})` };
	}
	const root = realpathSync(lines[0] as string);
	const gitDir = lines[1] as string;
	const commonRaw = lines[2] as string;
	const commonDir = isAbsolute(commonRaw) ? commonRaw : resolve(cwd, commonRaw);
	let realCwd = cwd;
	try {
		realCwd = realpathSync(cwd);
	} catch {
		// keep the given path
	}
	const rel = relative(root, realCwd);
	const prefix = rel.startsWith("..") || isAbsolute(rel) ? "" : rel.split(sep).join("/");
	return { root, gitDir, commonDir, prefix, linked: realOrNearest(gitDir) !== realOrNearest(commonDir) };
}

/**
 * The git facts of `cwd`: the cached repository facts plus HEAD and the branch, read from the git
 * directory's files (no subprocess). Returns the failure when `cwd` is not in a repository.
 */
export async function gitFacts(cwd: string): Promise<{ ok: true; facts: GitFacts } | GitFactsFailure> {
	const repo = await repoFacts(cwd);
	if (!repo.ok) return repo;
	return { ok: true, facts: { ...repo.facts, ...readHead(repo.facts) } };
}

/** The most a small git file cadre reads itself may hold (HEAD, a loose ref, a `.git` pointer, a lock reason). */
export const GIT_FILE_BYTES = 64 * 1024;
/** The most `packed-refs` may hold before cadre asks git instead (a repository with ~1M refs). */
const PACKED_REFS_BYTES = 128 * 1024 * 1024;
/** How many symbolic refs a chain may follow (git's own limit is 5). */
const MAX_SYMREF_DEPTH = 5;

/**
 * A git file cadre reads itself, or null: a regular file (a FIFO or device is never opened for a
 * blocking read), at most `maxBytes`. A child can replace files in its worktree, so its `.git`
 * pointer is input like any other (ADR 0061's reader).
 */
export function readGitFile(path: string, maxBytes: number = GIT_FILE_BYTES): string | null {
	const read = readFileUnder(path, { confine: "any", root: "/", maxBytes });
	return read.ok ? read.text : null;
}

/**
 * Whether the repository keeps its refs in loose and packed files. A reftable repository (git ≥
 * 2.45) has only stubs for older readers there: `refs/heads` is a plain file and `HEAD` names
 * `refs/heads/.invalid`. Any repository without a `refs/heads` directory is asked through git.
 */
function refsAreFiles(repo: Pick<RepoFacts, "commonDir">): boolean {
	try {
		return statSync(join(repo.commonDir, "refs", "heads")).isDirectory();
	} catch {
		return false;
	}
}

/** Runs git on one git directory synchronously; trimmed stdout, or null on a nonzero exit or no git. */
function gitLine(repo: Pick<RepoFacts, "gitDir">, args: string[]): string | null {
	try {
		const stdout = execFileSync(gitBinary(), [`--git-dir=${repo.gitDir}`, ...args], {
			env: { ...process.env, ...GIT_ENV },
			encoding: "utf8",
			stdio: ["ignore", "pipe", "ignore"],
			windowsHide: true,
		});
		return stdout.trim() || null;
	} catch {
		return null;
	}
}

/** Reads HEAD: the branch it names and the commit it resolves to (null when unborn). */
export function readHead(repo: Pick<RepoFacts, "gitDir" | "commonDir">): { branch: string | null; head: string | null } {
	if (!refsAreFiles(repo)) {
		const ref = gitLine(repo, ["symbolic-ref", "-q", "HEAD"]);
		const branch = ref?.startsWith("refs/heads/") ? ref.slice("refs/heads/".length) : null;
		return { branch, head: gitLine(repo, ["rev-parse", "-q", "--verify", "HEAD"]) };
	}
	const text = readGitFile(join(repo.gitDir, "HEAD"))?.trim();
	if (text === undefined) return { branch: null, head: null };
	if (!text.startsWith("ref: ")) return { branch: null, head: /^[0-9a-f]{40,64}$/.test(text) ? text : null };
	const ref = text.slice(5).trim();
	const branch = ref.startsWith("refs/heads/") ? ref.slice("refs/heads/".length) : null;
	return { branch, head: readRef(repo, ref) };
}

/** Resolves a full ref name from loose ref files or `packed-refs` (else git); null when it does not exist. */
export function readRef(repo: Pick<RepoFacts, "gitDir" | "commonDir">, ref: string, depth = 0): string | null {
	if (!refsAreFiles(repo)) return gitLine(repo, ["rev-parse", "-q", "--verify", ref]);
	for (const dir of [repo.gitDir, repo.commonDir]) {
		const value = readGitFile(join(dir, ref))?.trim();
		if (value === undefined) continue; // not a loose ref here
		if (value.startsWith("ref: ")) return depth < MAX_SYMREF_DEPTH ? readRef(repo, value.slice(5).trim(), depth + 1) : null;
		if (/^[0-9a-f]{40,64}$/.test(value)) return value;
	}
	const packed = readGitFile(join(repo.commonDir, "packed-refs"), PACKED_REFS_BYTES);
	for (const line of packed?.split("\n") ?? []) {
		const space = line.indexOf(" ");
		if (space > 0 && line.slice(space + 1) === ref && !line.startsWith("#")) return line.slice(0, space);
	}
	return null;
}
