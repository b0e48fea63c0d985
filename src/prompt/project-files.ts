/**
 * The small I/O edge of prompt assembly, reading files only (no subprocess, no pi import):
 *
 * - `findContextFiles` finds the context files pi would load for a directory — the agent dir's,
 *   then the directory's and its ancestors' (outermost first), one per directory from
 *   `AGENTS.override.md`, `AGENTS.md`, `AGENTS.MD`, `CLAUDE.md`, `CLAUDE.MD` — mirroring pi 1.6's
 *   `loadProjectContextFiles`, including its rule that a linked worktree nested inside its main
 *   repository shadows the main repository's file;
 * - `readGitBranch` reads the branch checked out at a directory from `.git/HEAD`.
 */
import { existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, join, relative, resolve, isAbsolute } from "node:path";
import type { ContextFile } from "./pi-prompt-shape.ts";

const CONTEXT_FILE_NAMES = ["AGENTS.override.md", "AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD"];

function stripBom(text: string): string {
	return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

function contextFileIn(dir: string): ContextFile | null {
	for (const name of CONTEXT_FILE_NAMES) {
		const path = join(dir, name);
		try {
			if (!statSync(path).isFile()) continue;
			return { path, content: stripBom(readFileSync(path, "utf8")) };
		} catch {
			// missing or unreadable: pi moves on to the next name
		}
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
				const content = readFileSync(dotGit, "utf8").trim();
				if (!content.startsWith("gitdir: ")) return null;
				const gitDir = resolve(dir, content.slice(8).trim());
				if (!existsSync(join(gitDir, "HEAD"))) return null;
				const commonPath = join(gitDir, "commondir");
				const commonGitDir = existsSync(commonPath) ? resolve(gitDir, readFileSync(commonPath, "utf8").trim()) : gitDir;
				return { repoDir: dir, gitDir, commonGitDir };
			} catch {
				return null;
			}
		}
		if (dirname(dir) === dir) return null;
	}
}

/** The main repository's context file that a nested linked worktree's own copy shadows (pi's rule). */
function shadowedContextFile(cwd: string): string | null {
	const paths = findGitPaths(cwd);
	if (!paths) return null;
	const commonGitDir = canonical(paths.commonGitDir);
	const worktreeRoot = canonical(paths.repoDir);
	const mainRoot = dirname(commonGitDir);
	if (!within(mainRoot, worktreeRoot) || worktreeRoot === mainRoot) return null;
	if (canonical(join(mainRoot, ".git")) !== commonGitDir) return null;
	const own = contextFileIn(worktreeRoot);
	return own ? join(mainRoot, basename(own.path)) : null;
}

/** The context files pi would load for `cwd`, in pi's order: the agent dir's first, then outermost to `cwd`. */
export function findContextFiles(cwd: string, agentDir: string): ContextFile[] {
	const files: ContextFile[] = [];
	const seen = new Set<string>();
	const global = contextFileIn(resolve(agentDir));
	if (global) {
		files.push(global);
		seen.add(global.path);
	}
	const shadowed = shadowedContextFile(resolve(cwd));
	const ancestors: ContextFile[] = [];
	for (let dir = resolve(cwd); ; dir = dirname(dir)) {
		const file = contextFileIn(dir);
		const isShadowed = shadowed !== null && file !== null && join(canonical(dir), basename(file.path)) === shadowed;
		if (file && !isShadowed && !seen.has(file.path)) {
			ancestors.unshift(file);
			seen.add(file.path);
		}
		if (dirname(dir) === dir) break;
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
	let head: string;
	try {
		head = readFileSync(join(paths.gitDir, "HEAD"), "utf8").trim();
	} catch {
		return null;
	}
	const ref = /^ref:\s*refs\/heads\/(.+)$/.exec(head);
	if (ref) return ref[1] as string;
	if (head.startsWith("ref:")) return head.slice(4).trim();
	return `HEAD (detached at ${head.slice(0, 7)})`;
}
