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
