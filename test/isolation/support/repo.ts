/**
 * Temporary git repositories for the worktree tests. The machine's git configuration never leaks
 * in (`GIT_CONFIG_GLOBAL=/dev/null`, `GIT_CONFIG_NOSYSTEM=1`); the repository's identity is set in
 * its own config only when a test asks for one, and the helper's own commits pass `-c user.*`.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { Settings } from "../../../src/files/types.ts";

process.env.GIT_CONFIG_GLOBAL = "/dev/null";
process.env.GIT_CONFIG_NOSYSTEM = "1";
for (const name of ["GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "EMAIL"]) {
	delete process.env[name];
}

/** Runs git synchronously in `cwd` and returns trimmed stdout (throws on failure). */
export function git(cwd: string, ...args: string[]): string {
	return execFileSync("git", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
}

/** Commits everything in `cwd` as the helper (never the identity under test). */
export function commitAll(cwd: string, message: string): string {
	git(cwd, "add", "-A");
	git(cwd, "-c", "user.name=Helper", "-c", "user.email=helper@test", "commit", "-q", "--no-verify", "-m", message);
	return git(cwd, "rev-parse", "HEAD");
}

export interface TestRepo {
	root: string;
	agentDir: string;
	write(path: string, text: string): void;
	read(path: string): string;
}

/** A fresh repository with `files` committed on `main`; `identity: false` leaves user.* unset. */
export function makeRepo(files: Record<string, string> = { "README.md": "hello\n" }, options: { identity?: boolean } = {}): TestRepo {
	const base = realpathSync(mkdtempSync(join(tmpdir(), "cadre-wt-")));
	const root = join(base, "project");
	const agentDir = join(base, "agent");
	mkdirSync(root, { recursive: true });
	mkdirSync(agentDir, { recursive: true });
	git(root, "init", "-q", "-b", "main");
	if (options.identity !== false) {
		git(root, "config", "user.name", "Repo Owner");
		git(root, "config", "user.email", "owner@example.test");
	}
	const repo: TestRepo = {
		root,
		agentDir,
		write(path, text) {
			const full = join(root, path);
			mkdirSync(dirname(full), { recursive: true });
			writeFileSync(full, text);
		},
		read(path) {
			return readFileSync(join(root, path), "utf8");
		},
	};
	for (const [path, text] of Object.entries(files)) repo.write(path, text);
	if (Object.keys(files).length > 0) commitAll(root, "initial");
	return repo;
}

/** Writes a file at an absolute path, creating directories. */
export function writeAt(path: string, text: string): void {
	mkdirSync(dirname(path), { recursive: true });
	writeFileSync(path, text);
}

/** No shared fallback, no pool: every worktree is made with `git worktree add` and removed at the end. */
export const noFallback: Settings["worktree"] = { baseDir: null, allowSharedFallback: false, pool: { size: 0 } };
export const withFallback: Settings["worktree"] = { baseDir: null, allowSharedFallback: true, pool: { size: 0 } };
/** A pool of `size` prepared worktrees (the default settings have one too, ADR 0085). */
export function pooled(size = 2, extra: Partial<Settings["worktree"]> = {}): Settings["worktree"] {
	return { baseDir: null, allowSharedFallback: false, pool: { size }, ...extra };
}
