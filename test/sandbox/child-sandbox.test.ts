/**
 * One child's sandbox (ADR 0150, issue 28): the wrap of its commands is computed only for a child
 * that has bash — a child with file tools only (explore, plan) needs no wrap and never starts the
 * library, so its spawn does none of the library's path walking; a child with bash holds one wrap
 * until it is disposed.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { prepareChildSandbox } from "../../src/sandbox/child-sandbox.ts";
import { heldWraps, startupMs } from "../../src/sandbox/manager.ts";
import { sandboxPlatform } from "../../src/sandbox/platform.ts";
import { childSandboxOptions } from "./child-options.ts";

const options = (tools: string[], capabilityMode: "read-only" | null) => childSandboxOptions(tools, capabilityMode);

describe("a child's sandbox", () => {
	it("computes no wrap and starts no library for a child without bash", async () => {
		const sandbox = await prepareChildSandbox(options(["read", "grep", "find", "ls"], "read-only"));
		expect(heldWraps()).toBe(0);
		expect(startupMs).toBeNull();
		expect(sandbox.tools.map((tool) => tool.name).sort()).toEqual(["find", "grep", "ls", "read"]);
		sandbox.dispose();
		expect(heldWraps()).toBe(0);
	});

	it("shares a read-only child's policy while its config, settings and paths are the same; a changed setting makes a new one", async () => {
		const base = options(["read", "grep"], "read-only");
		const first = await prepareChildSandbox(base);
		const second = await prepareChildSandbox({ ...base });
		expect(second.policy).toBe(first.policy);
		// a settings file edited: the files' cache hands out new settings, and the policy follows them
		const edited = await prepareChildSandbox({ ...base, settings: { ...base.settings, denyRead: ["secrets"] } });
		expect(edited.policy).not.toBe(first.policy);
		expect(edited.policy.denyRead).toContain(join(base.baseDir, "secrets"));
		expect(first.policy.denyRead).not.toContain(join(base.baseDir, "secrets"));
		// another directory, another policy
		const elsewhere = await prepareChildSandbox({ ...base, cwd: join(base.cwd, "sub"), writeRoot: join(base.cwd, "sub") });
		expect(elsewhere.policy).not.toBe(first.policy);
		// a writable child's policy is its own (its temp dir)
		const writable = options(["read", "write"], null);
		const [a, b] = [await prepareChildSandbox(writable), await prepareChildSandbox(writable)];
		expect(a.policy).not.toBe(b.policy);
		for (const sandbox of [first, second, edited, elsewhere, a, b]) sandbox.dispose();
	});

	it.skipIf(!sandboxPlatform().available)("makes a child's wrap at its first command, not at its spawn, and holds it until it is disposed", async () => {
		const sandbox = await prepareChildSandbox(options(["read", "bash"], null));
		expect(heldWraps()).toBe(0);
		expect(sandbox.tools.map((tool) => tool.name).sort()).toEqual(["bash", "read"]);
		const [first, second] = await Promise.all([sandbox.shell("true", {}), sandbox.shell("echo hi", {})]);
		expect(heldWraps()).toBe(1);
		expect(first.command).toBe(second.command);
		expect(second.env.CADRE_SANDBOX_COMMAND).toBe("echo hi");
		sandbox.dispose();
		await new Promise((resolve) => setTimeout(resolve, 10));
		expect(heldWraps()).toBe(0);
	}, 30_000);
});
