/**
 * The small I/O edge of prompt assembly, reading files only (no subprocess, no pi import):
 *
 * - `findContextFiles` finds the context files pi would load for a directory — the agent dir's,
 *   then the directory's and its ancestors' (outermost first), one per directory from
 *   `AGENTS.override.md`, `AGENTS.md`, `AGENTS.MD`, `CLAUDE.md`, `CLAUDE.MD` — mirroring pi 1.6's
 *   `loadProjectContextFiles`, including its rule that a linked worktree nested inside its main
 *   repository shadows the main repository's file;
 * - `readGitBranch` reads the branch checked out at a directory from `.git/HEAD`.
 *
 * Every file goes through the one reader (ADR 0060): regular files only, size-bounded, and a
 * context file inside a repository must really be inside that repository; the agent dir's file and
 * those above every repository are the user's, and their symlinks are followed.
 */
import { existsSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, join, relative, resolve, isAbsolute } from "node:path";
import type { Diagnostic } from "../core/diagnostics.ts";
import { DEFAULT_MAX_FILE_BYTES, type ReadRule, readFileUnder, readProblemDiagnostic } from "../files/read-confined.ts";
import type { ContextFile } from "./pi-prompt-shape.ts";

const CONTEXT_FILE_NAMES = ["AGENTS.override.md", "AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD"];

function stripBom(text: string): string {
	return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** Git metadata (`.git` files, HEAD, commondir): read anywhere git put it, but only regular files, bounded. */
const GIT_RULE: ReadRule = { confine: "any", root: "/", maxBytes: 64 * 1024 };

function readGitFile(path: string): string | null {
	const read = readFileUnder(path, GIT_RULE);
	return read.ok ? read.text : null;
}

/** The first context file of `dir` pi would load; one that escapes or is too large is reported, and pi's next name is not tried. */
function contextFileIn(dir: string, rule: ReadRule, problems?: Diagnostic[]): ContextFile | null {
	for (const name of CONTEXT_FILE_NAMES) {
		const path = join(dir, name);
		const read = readFileUnder(path, rule);
		if (read.ok) return { path, content: stripBom(read.text) };
		// pi moves on to the next name when a file is missing, unreadable or not a regular file.
		if (read.code === "missing-file" || read.code === "unreadable" || read.code === "not-a-file") continue;
		problems?.push(readProblemDiagnostic(path, read, "the context file", "it is left out of the child's prompt"));
		return null;
	}
	return null;
}

function canonical(path: string): string {
	try {
		return realpathSync(path);
	} catch {
		return resolve(path);
	}
}

function within(parent: string, child: string): boolean {
	const rel = relative(parent, child);
	return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/** The repository a directory belongs to: its top directory, common git dir and HEAD file. */
export interface GitPaths {
	repoDir: string;
	gitDir: string;
	commonGitDir: string;
}

/** Walks up from `cwd` to the first `.git` directory or `gitdir:` file (pi's `findGitPaths`). */
export function findGitPaths(cwd: string): GitPaths | null {
	for (let dir = resolve(cwd); ; dir = dirname(dir)) {
		const dotGit = join(dir, ".git");
		if (existsSync(dotGit)) {
			try {
				const stat = statSync(dotGit);
				if (stat.isDirectory()) {
					return existsSync(join(dotGit, "HEAD")) ? { repoDir: dir, gitDir: dotGit, commonGitDir: dotGit } : null;
				}
				const content = readGitFile(dotGit)?.trim() ?? "";
				if (!content.startsWith("gitdir: ")) return null;
				const gitDir = resolve(dir, content.slice(8).trim());
				if (!existsSync(join(gitDir, "HEAD"))) return null;
				const commonPath = join(gitDir, "commondir");
				const common = existsSync(commonPath) ? readGitFile(commonPath) : null;
				const commonGitDir = common === null ? gitDir : resolve(gitDir, common.trim());
				return { repoDir: dir, gitDir, commonGitDir };
			} catch {
				return null;
			}
		}
		if (dirname(dir) === dir) return null;
	}
}

/** The main repository's context file that a nested linked worktree's own copy shadows (pi's rule). */
function shadowedContextFile(cwd: string, maxBytes: number): string | null {
	const paths = findGitPaths(cwd);
	if (!paths) return null;
	const commonGitDir = canonical(paths.commonGitDir);
	const worktreeRoot = canonical(paths.repoDir);
	const mainRoot = dirname(commonGitDir);
	if (!within(mainRoot, worktreeRoot) || worktreeRoot === mainRoot) return null;
	if (canonical(join(mainRoot, ".git")) !== commonGitDir) return null;
	const own = contextFileIn(worktreeRoot, { confine: "project", root: worktreeRoot, maxBytes });
	return own ? join(mainRoot, basename(own.path)) : null;
}

/**
 * The read rule of each directory from `cwd` up to `/`: inside a repository (a directory holding
 * `.git`), confined to the nearest one by real path; above every repository, the user's own.
 */
function directoryRules(cwd: string, maxBytes: number): { dir: string; rule: ReadRule }[] {
	const dirs: string[] = [];
	for (let dir = resolve(cwd); ; dir = dirname(dir)) {
		dirs.push(dir);
		if (dirname(dir) === dir) break;
	}
	const rules: { dir: string; rule: ReadRule }[] = [];
	let repo: string | null = null;
	for (const dir of [...dirs].reverse()) {
		if (existsSync(join(dir, ".git"))) repo = dir;
		rules.unshift({ dir, rule: repo === null ? { confine: "any", root: dir, maxBytes } : { confine: "project", root: repo, maxBytes } });
	}
	return rules;
}

/**
 * The context files pi would load for `cwd`, in pi's order: the agent dir's first, then outermost
 * to `cwd`. A file the reader refuses (ADR 0060) is left out and, when `problems` is given, reported there.
 */
export function findContextFiles(cwd: string, agentDir: string, problems?: Diagnostic[], maxBytes = DEFAULT_MAX_FILE_BYTES): ContextFile[] {
	const files: ContextFile[] = [];
	const seen = new Set<string>();
	const global = contextFileIn(resolve(agentDir), { confine: "any", root: agentDir, maxBytes }, problems);
	if (global) {
		files.push(global);
		seen.add(global.path);
	}
	const shadowed = shadowedContextFile(resolve(cwd), maxBytes);
	const ancestors: ContextFile[] = [];
	for (const { dir, rule } of directoryRules(cwd, maxBytes)) {
		const file = contextFileIn(dir, rule, problems);
		const isShadowed = shadowed !== null && file !== null && join(canonical(dir), basename(file.path)) === shadowed;
		if (file && !isShadowed && !seen.has(file.path)) {
			ancestors.unshift(file);
			seen.add(file.path);
		}
	}
	files.push(...ancestors);
	return files;
}

/**
 * The branch checked out at `cwd`, read from HEAD without running git: the branch name, or
 * `HEAD (detached at <sha7>)`; null outside a git repository.
 */
export function readGitBranch(cwd: string): string | null {
	const paths = findGitPaths(cwd);
	if (!paths) return null;
	const head = readGitFile(join(paths.gitDir, "HEAD"))?.trim();
	if (head === undefined) return null;
	const ref = /^ref:\s*refs\/heads\/(.+)$/.exec(head);
	if (ref) return ref[1] as string;
	if (head.startsWith("ref:")) return head.slice(4).trim();
	return `HEAD (detached at ${head.slice(0, 7)})`;
}
