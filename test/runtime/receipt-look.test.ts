/**
 * When a receipt looks at the tree (issue 28): a child changes nothing before its first tool call
 * that can change a file, so `git status` — a subprocess, milliseconds of the parent's main thread
 * on these machines — is taken then, not while the child is being spawned; a child that only reads
 * or answers runs no git at all. Its calls wait for the look, so the look is always taken before
 * the change.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createReceiptCollector } from "../../src/runtime/receipt.ts";

function repo(): string {
	const dir = mkdtempSync(join(process.env.TMPDIR ?? "/tmp", "receipt-"));
	for (const args of [["init", "-q"], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "init"]]) execFileSync("git", args, { cwd: dir });
	return dir;
}

/** A repository root lookup that counts how often it was asked (each look at the tree asks once). */
function counted(root: string) {
	const asked = { count: 0 };
	return { asked, rootOf: async () => (asked.count++, root) };
}

const start = (toolName: string, args: unknown = {}) => ({ type: "tool_start" as const, toolName, toolCallId: `call-${toolName}`, args });

describe("the receipt's look at the tree", () => {
	it("is not taken at the start, nor for calls that change no file", async () => {
		const dir = repo();
		const { asked, rootOf } = counted(dir);
		const collector = createReceiptCollector(dir, false, rootOf);
		for (const name of ["read", "grep", "find", "ls", "submit_result", "get_subagent_result"]) {
			expect(collector.beforeTool(name)).toBeNull();
			collector.onEvent(start(name, { path: "a.txt" }));
		}
		// someone else changes the tree meanwhile: not the child's
		writeFileSync(join(dir, "other.txt"), "not the child's\n");
		const receipt = await collector.finish(null);
		expect(asked.count).toBe(0);
		expect(receipt).toMatchObject({ filesFrom: "tool-calls", files: [], toolUses: { read: 1, grep: 1, find: 1, ls: 1, submit_result: 1, get_subagent_result: 1 } });
	});

	it("is taken once, before the first call that can change a file runs, and finds what the child changed", async () => {
		const dir = repo();
		writeFileSync(join(dir, "before.txt"), "there before the child\n");
		const { asked, rootOf } = counted(dir);
		const collector = createReceiptCollector(dir, false, rootOf);
		const waits = [collector.beforeTool("bash"), collector.beforeTool("write"), collector.beforeTool("my_extension_tool")];
		expect(waits.every((wait) => wait instanceof Promise)).toBe(true);
		await Promise.all(waits);
		expect(asked.count).toBe(1);
		collector.onEvent(start("write", { path: "made.txt" }));
		writeFileSync(join(dir, "made.txt"), "one\ntwo\n");
		const receipt = await collector.finish(null);
		expect(receipt.filesFrom).toBe("tool-calls-and-git-status");
		expect(receipt.files).toEqual([{ path: "made.txt", added: 2, removed: 0 }]);
	});

	it("is taken at the first changing call's start when nothing waited for it (a child without the gate)", async () => {
		const dir = repo();
		const { asked, rootOf } = counted(dir);
		const collector = createReceiptCollector(dir, false, rootOf);
		collector.onEvent(start("edit", { path: "late.txt" }));
		expect(asked.count).toBe(1);
		writeFileSync(join(dir, "late.txt"), "x\n");
		const receipt = await collector.finish(null);
		expect(receipt.files.map((file) => file.path)).toEqual(["late.txt"]);
	});

	it("is never taken for an isolated run (its worktree's diff is the receipt)", async () => {
		const dir = repo();
		const { asked, rootOf } = counted(dir);
		const collector = createReceiptCollector(dir, true, rootOf);
		expect(collector.beforeTool("bash")).toBeNull();
		const receipt = await collector.finish({ diffStat: { files: [{ path: "x.ts", added: 1, removed: 0 }] } });
		expect(asked.count).toBe(0);
		expect(receipt.filesFrom).toBe("worktree-diff");
	});
});
