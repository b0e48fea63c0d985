/**
 * A read-only child and bash (issue 27, ADR 0185): the built-in explore and plan get bash exactly
 * when they run sandboxed and read-only (the sandbox makes bash a read tool); a request that widens
 * their capability never gets it; the tools trace names what was dropped for want of a sandbox.
 */
import { describe, expect, it } from "vitest";
import { resolve } from "../../src/resolve/resolve.ts";
import { entry, input, loaded, parent } from "./support/build.ts";

const available = { available: true, reason: null, hint: "install" };
const missing = { available: false, reason: "bwrap is not on PATH", hint: "install" };

describe("bash of a read-only child", () => {
	it("the built-in explore keeps bash when sandboxed", () => {
		const result = resolve(input({ type: "explore", parent: parent({ sandbox: available }) }));
		expect(result.config?.sandboxed).toBe(true);
		expect(result.config?.tools).toEqual(["read", "grep", "find", "ls", "bash"]);
		expect(result.trace.tools?.unsandboxed).toBeUndefined();
	});

	it("the built-in plan too; without a sandbox neither has bash, and the trace says bash was dropped for that", () => {
		expect(resolve(input({ type: "plan", parent: parent({ sandbox: available }) })).config?.tools).toContain("bash");
		const result = resolve(input({ type: "explore", parent: parent({ sandbox: missing }) }));
		expect(result.config?.sandboxed).toBe(false);
		expect(result.config?.tools).toEqual(["read", "grep", "find", "ls"]);
		expect(result.trace.tools?.unsandboxed).toEqual(["bash"]);
	});

	it("a request that widens explore's capability gets no bash", () => {
		for (const capability of ["all", "execute", "read-write"]) {
			const result = resolve(input({ type: "explore", request: { capability }, parent: parent({ sandbox: available }) }));
			expect(result.config?.tools, capability).not.toContain("bash");
		}
	});

	it("a file's read-only definition listing bash: kept sandboxed; dropped without, and the trace says so", () => {
		const scout = entry("definition", { name: "scout", keys: { tools: ["read", "bash"], capability: "read-only" } });
		const files = loaded({ definitions: [scout] });
		expect(resolve(input({ type: "scout", loaded: files, parent: parent({ sandbox: available }) })).config?.tools).toEqual(["read", "bash"]);
		const without = resolve(input({ type: "scout", loaded: files, parent: parent({ sandbox: missing }) }));
		expect(without.config?.tools).toEqual(["read"]);
		expect(without.trace.tools?.unsandboxed).toEqual(["bash"]);
	});

	it("a user file that lists explore's tools without bash keeps them as written", () => {
		const explore = entry("definition", { name: "explore", scope: "user", keys: { tools: ["read", "grep"], capability: "read-only" } });
		const result = resolve(input({ type: "explore", loaded: loaded({ definitions: [explore] }), parent: parent({ sandbox: available }) }));
		expect(result.config?.tools).toEqual(["read", "grep"]);
	});
});
