/**
 * Git metadata cadre reads itself (HEAD, refs, packed-refs, a worktree's `.git` pointer and lock):
 * files a child can replace inside its worktree or a repository can hold. Each read is a regular
 * file, size-bounded and never blocks on open (ADR 0061's reader), and a symbolic ref chain ends.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, openSync, closeSync, ftruncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readHead, readRef } from "../../src/isolation/git.ts";
import { worktreeAdminDir } from "../../src/isolation/worktree-lock.ts";

const SHA = "0123456789abcdef0123456789abcdef01234567";

/** A bare-looking git directory with loose refs (refs/heads exists, so refs are files). */
function gitDir(): string {
	const dir = mkdtempSync(join(tmpdir(), "git-files-"));
	mkdirSync(join(dir, "refs", "heads"), { recursive: true });
	return dir;
}

describe("git metadata cadre reads", () => {
	it("a worktree whose .git is a FIFO is no worktree, answered at once instead of blocking on open", () => {
		const worktree = mkdtempSync(join(tmpdir(), "fifo-worktree-"));
		execFileSync("mkfifo", [join(worktree, ".git")]);
		expect(worktreeAdminDir(worktree)).toBeNull();
	});

	it("a HEAD or a loose ref that is a FIFO, or huge, reads as no commit", () => {
		const dir = gitDir();
		execFileSync("mkfifo", [join(dir, "HEAD")]);
		expect(readHead({ gitDir: dir, commonDir: dir })).toEqual({ branch: null, head: null });
		execFileSync("mkfifo", [join(dir, "refs", "heads", "main")]);
		expect(readRef({ gitDir: dir, commonDir: dir }, "refs/heads/main")).toBeNull();
		// A sparse 2 GiB packed-refs costs nothing to make; read whole it would cost 2 GiB.
		const fd = openSync(join(dir, "packed-refs"), "w");
		ftruncateSync(fd, 2 * 1024 ** 3);
		closeSync(fd);
		expect(readRef({ gitDir: dir, commonDir: dir }, "refs/heads/other")).toBeNull();
	});

	it("a symbolic ref chain that loops ends as no commit after a few links", () => {
		const dir = gitDir();
		writeFileSync(join(dir, "HEAD"), "ref: refs/heads/a\n");
		writeFileSync(join(dir, "refs", "heads", "a"), "ref: refs/heads/b\n");
		writeFileSync(join(dir, "refs", "heads", "b"), "ref: refs/heads/a\n");
		expect(readHead({ gitDir: dir, commonDir: dir })).toEqual({ branch: "a", head: null });
	});

	it("still reads a normal HEAD, a symbolic chain and packed refs", () => {
		const dir = gitDir();
		writeFileSync(join(dir, "HEAD"), "ref: refs/heads/a\n");
		writeFileSync(join(dir, "refs", "heads", "a"), "ref: refs/heads/b\n");
		writeFileSync(join(dir, "packed-refs"), `# pack-refs with: peeled fully-peeled sorted\n${SHA} refs/heads/b\n`);
		expect(readHead({ gitDir: dir, commonDir: dir })).toEqual({ branch: "a", head: SHA });
	});
});
