/**
 * The `subagent` tool description of a child that delegates (issue 21) lists only the types it may
 * spawn — `spawnableTypes` of its resolved delegation — never the rest. Plain data, no pi session.
 */
import { describe, expect, it } from "vitest";
import { subagentDescription } from "../../src/hosts/pi/tools.ts";
import { spawnableTypes } from "../../src/resolve/delegation.ts";
import { resolve } from "../../src/resolve/resolve.ts";
import { input, loaded as build, entry } from "../resolve/support/build.ts";

describe("a delegating child's subagent description", () => {
	it("lists only what its subagents allow", () => {
		const lead = entry("definition", { name: "lead", keys: { description: "Leads", tools: ["read", "subagent"], subagents: ["explore"] } });
		const loaded = build({ definitions: [lead] });
		const config = resolve(input({ type: "lead", loaded })).config!;
		const text = subagentDescription(loaded, spawnableTypes(loaded, config.delegation));
		expect(text).toContain("- explore:");
		expect(text).not.toContain("- general-purpose:");
		expect(text).not.toContain("- lead:");
		expect(subagentDescription(loaded)).toContain("- general-purpose:");
	});
});

describe("the subagent description and bash of a read-only type (issue 27)", () => {
	const available = { available: true, reason: null, hint: "install" };
	const missing = { available: false, reason: "bwrap is not on PATH", hint: "install" };
	const scout = entry("definition", { name: "scout", keys: { description: "Scouts", tools: ["read", "bash"], capability: "read-only" } });

	it("says a read-only type keeps bash in the sandbox", () => {
		const text = subagentDescription(build({ definitions: [scout] }), undefined, available);
		expect(text).toMatch(/- explore: .*read-only; bash in the OS sandbox, read-only\)/);
		expect(text).toMatch(/- scout: Scouts \(read, bash; read-only; bash in the OS sandbox, read-only\)/);
	});

	it("and that it has no bash when nothing sandboxes it", () => {
		const text = subagentDescription(build({ definitions: [scout] }), undefined, missing);
		expect(text).toMatch(/- explore: .*read-only; no bash: no OS sandbox here\)/);
		expect(text).toMatch(/- scout: Scouts \(read, bash; read-only; no bash: no OS sandbox here\)/);
	});
});
