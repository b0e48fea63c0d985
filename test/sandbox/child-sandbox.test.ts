/**
 * One child's sandbox (ADR 0150, issue 28): the wrap of its commands is computed only for a child
 * that has bash — a child with file tools only (explore, plan) needs no wrap and never starts the
 * library, so its spawn does none of the library's path walking; a child with bash holds one wrap
 * until it is disposed.
 */
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
