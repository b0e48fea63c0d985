/**
 * One long-lived sandboxed shell per child (issue 27, ADR 0195): a child's bash calls run in one
 * sandbox started at its first call, through pi's own bash tool, with pi's semantics kept: output
 * and exit codes, a signal's 128 + n, a timeout and an abort that take whatever the command
 * started, parallel calls kept apart, no credential variable, a server a command killed replaced
 * at the next call, and nothing left running once the child's sandbox is disposed.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { ToolDefinition } from "@earendil-works/pi-coding-agent";
import { afterEach, describe, expect, it } from "vitest";
import { type ChildSandbox, prepareChildSandbox } from "../../src/sandbox/child-sandbox.ts";
import { sandboxPlatform } from "../../src/sandbox/platform.ts";
import { childSandboxOptions } from "./child-options.ts";

const opened: ChildSandbox[] = [];
afterEach(() => {
	for (const sandbox of opened.splice(0)) sandbox.dispose();
});

async function child(): Promise<{ dir: string; sandbox: ChildSandbox; bash: ToolDefinition }> {
	const options = childSandboxOptions(["bash"], null, "sandbox-shell-");
	const dir = options.cwd;
	const sandbox = await prepareChildSandbox(options);
	opened.push(sandbox);
	const bash = sandbox.tools.find((tool) => tool.name === "bash");
	if (!bash) throw new Error("no bash");
	return { dir, sandbox, bash };
}

/** One bash call as pi makes it: its text, or the error pi's tool threw. */
async function call(bash: ToolDefinition, command: string, extra: { timeout?: number; signal?: AbortSignal } = {}): Promise<string> {
	try {
		const result = await bash.execute("call", { command, ...(extra.timeout ? { timeout: extra.timeout } : {}) }, extra.signal, undefined, undefined as never);
		return result.content.map((part) => ("text" in part ? part.text : "")).join("");
	} catch (error) {
		return `ERROR ${(error as Error).message}`;
	}
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!sandboxPlatform().available)("a child's long-lived sandboxed shell", () => {
	it("runs every bash call of a child in one sandbox (one PID namespace), not one per call", async () => {
		const { bash } = await child();
		const first = await call(bash, "readlink /proc/self/ns/pid");
		const second = await call(bash, "readlink /proc/self/ns/pid");
		expect(first).toMatch(/^pid:\[\d+\]/);
		expect(second).toBe(first);
		// and it is not the parent's namespace: the commands are still sandboxed
		const { readlinkSync } = await import("node:fs");
		expect(first.trim()).not.toBe(readlinkSync("/proc/self/ns/pid"));
	}, 30_000);

	it("keeps pi's bash semantics: output, exit codes, a signal as 128 + n, the child's cwd", async () => {
		const { dir, bash } = await child();
		// stdout and stderr are two pipes, as in pi's own shell: both arrive, their order is not kept
		expect((await call(bash, "echo out; echo err >&2; pwd")).split("\n").sort()).toEqual(["", dir, "err", "out"]);
		expect(await call(bash, "echo failing; exit 3")).toContain("Command exited with code 3");
		expect(await call(bash, "kill -9 $$")).toContain("Command exited with code 137");
		expect(await call(bash, "env")).not.toMatch(/CADRE_SHELL_|CADRE_SANDBOX_COMMAND/);
	}, 30_000);

	it("keeps parallel calls apart", async () => {
		const { bash } = await child();
		const [a, b] = await Promise.all([call(bash, "for i in 1 2 3; do echo a$i; sleep 0.05; done"), call(bash, "for i in 1 2 3; do echo b$i; sleep 0.05; done")]);
		expect(a).toBe("a1\na2\na3\n");
		expect(b).toBe("b1\nb2\nb3\n");
	}, 30_000);

	it("a timeout and an abort end the command with whatever it started", async () => {
		const { dir, bash } = await child();
		const timedOut = await call(bash, "(sleep 0.6; touch late-timeout) & sleep 5", { timeout: 0.3 });
		expect(timedOut).toContain("Command timed out after 0.3 seconds");
		const controller = new AbortController();
		setTimeout(() => controller.abort(), 300);
		const aborted = await call(bash, "(sleep 0.6; touch late-abort) & sleep 5", { signal: controller.signal });
		expect(aborted).toContain("Command aborted");
		await sleep(900);
		expect(existsSync(join(dir, "late-timeout"))).toBe(false);
		expect(existsSync(join(dir, "late-abort"))).toBe(false);
		expect(await call(bash, "echo still-here")).toBe("still-here\n");
	}, 30_000);

	it("an abort while the sandbox is still starting ends the first call before its command runs", async () => {
		const { dir, bash } = await child();
		const controller = new AbortController();
		setTimeout(() => controller.abort(), 5); // the sandbox takes longer than this to start
		const started = Date.now();
		expect(await call(bash, "sleep 3; touch ran", { signal: controller.signal })).toContain("aborted");
		expect(Date.now() - started).toBeLessThan(2500);
		expect(existsSync(join(dir, "ran"))).toBe(false);
	}, 30_000);

	it("a command that kills the shell fails with a clear error, and the next call gets a new one", async () => {
		const { bash } = await child();
		const killed = await call(bash, "kill -9 $PPID; sleep 5");
		expect(killed).toContain("sandboxed shell ended");
		expect(await call(bash, "echo back")).toBe("back\n");
	}, 30_000);

	it("disposing the child's sandbox takes what its commands left running", async () => {
		const { dir, sandbox, bash } = await child();
		expect(await call(bash, "(sleep 0.6; touch left-behind) > /dev/null 2>&1 & echo started")).toBe("started\n");
		sandbox.dispose();
		await sleep(900);
		expect(existsSync(join(dir, "left-behind"))).toBe(false);
	}, 30_000);
});
