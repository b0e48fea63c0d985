/**
 * Tool selection and the capability filter (spec 04 "Tools a child can have"), and tool
 * diagnostics as the resolver reports them.
 */
import { describe, expect, it } from "vitest";
import { resolve } from "../../src/resolve/resolve.ts";
import { builtinToolNames, filterByCapability, matchesGlob, selectTools, suggestToolNames, toolKind } from "../../src/resolve/tools.ts";
import { entry, input, loaded, parent } from "./support/build.ts";

const universe = [...builtinToolNames("linux"), "mcp_github_issue", "mcp_github_pr", "codemode", "web_fetch"];

describe("selectTools", () => {
	it("keeps list order, expands globs in universe order and removes duplicates", () => {
		expect(selectTools(["ls", "mcp_*", "read", "ls", "mcp_github_pr"], universe)).toEqual({
			tools: ["ls", "mcp_github_issue", "mcp_github_pr", "read"],
			unavailable: [],
		});
	});

	it("reports names and globs that match nothing in the universe", () => {
		expect(selectTools(["read", "Read", "zap*", "nope"], universe)).toEqual({ tools: ["read"], unavailable: ["Read", "zap*", "nope"] });
	});

	it("treats all and none as every tool and no tool", () => {
		expect(selectTools("all", universe).tools).toEqual(universe);
		expect(selectTools("none", universe).tools).toEqual([]);
	});

	it("puts pi's built-ins in pi's order, powershell only on Windows", () => {
		expect(builtinToolNames("linux")).toEqual(["read", "bash", "edit", "write", "grep", "find", "ls"]);
		expect(builtinToolNames("win32")).toContain("powershell");
	});
});

describe("capability filter", () => {
	const selected = ["read", "bash", "edit", "grep", "mcp_github_issue", "codemode"];

	it.each([
		["read-only", ["read", "grep"]],
		["read-write", ["read", "edit", "grep"]],
		["execute", ["read", "bash", "grep"]],
		["all", selected],
	] as const)("%s keeps %j", (mode, kept) => {
		expect(filterByCapability(selected, mode).tools).toEqual(kept);
	});

	it("keeps everything when unset", () => {
		expect(filterByCapability(selected, null)).toEqual({ tools: selected, droppedUnknown: [], droppedKnown: [] });
	});

	it("separates unknown-kind drops from known-kind drops", () => {
		expect(filterByCapability(selected, "read-only")).toMatchObject({ droppedUnknown: ["mcp_github_issue", "codemode"], droppedKnown: ["bash", "edit"] });
	});

	it("classifies extension tools with toolKinds globs, exact names first, built-ins fixed", () => {
		const kinds = { "mcp_github_*": "write", mcp_github_issue: "read", bash: "read" } as const;
		expect(toolKind("mcp_github_issue", kinds)).toBe("read");
		expect(toolKind("mcp_github_pr", kinds)).toBe("write");
		expect(toolKind("bash", kinds)).toBe("execute");
		expect(toolKind("web_fetch", kinds)).toBeNull();
	});

	it("counts tools that call other tools as unknown whatever toolKinds says", () => {
		expect(toolKind("codemode", { codemode: "read" })).toBeNull();
		expect(toolKind("tool_search", { "*": "read" })).toBeNull();
	});

	it("matches * globs literally otherwise", () => {
		expect(matchesGlob("a*c*e", "abcde")).toBe(true);
		expect(matchesGlob("a*c", "ac")).toBe(true);
		expect(matchesGlob("a.c", "abc")).toBe(false);
		expect(matchesGlob("*_read", "thread_read")).toBe(true);
		expect(matchesGlob("ab*ba", "aba")).toBe(false);
	});
});

describe("suggestToolNames", () => {
	it("suggests pi's spelling for other cases and Claude Code's names, once each", () => {
		const universe = ["read", "bash", "edit", "write", "grep", "find", "ls"];
		expect(suggestToolNames(["Read", "Grep", "Glob", "Bash", "MultiEdit", "Edit", "LS"], universe)).toEqual(["read", "grep", "find", "bash", "edit", "ls"]);
		expect(suggestToolNames(["WebFetch", "tsc"], universe)).toEqual([]);
	});
});

describe("tools in resolution", () => {
	it("takes the parent's active tools when the definition sets none", () => {
		const result = resolve(input({ parent: parent({ activeTools: ["read", "bash"] }) }));
		expect(result.config?.tools).toEqual(["read", "bash"]);
		expect(result.trace.tools).toMatchObject({ layer: "parent", source: "parent" });
	});

	it("warns tool-unavailable at the definition's tools key", () => {
		const scout = entry("definition", { name: "scout", keys: { tools: ["read", "grpe"] }, body: "x" });
		const result = resolve(input({ type: "scout", loaded: loaded({ definitions: [scout] }) }));
		expect(result.config?.tools).toEqual(["read"]);
		expect(result.trace.tools).toMatchObject({ layer: "definition", source: ".pi/agents/scout.md:2" });
		expect(result.diagnostics).toEqual([expect.objectContaining({ code: "tool-unavailable", file: ".pi/agents/scout.md", line: 2 })]);
		expect(result.diagnostics[0]?.message).toContain('"grpe"');
		expect(result.diagnostics[0]?.hint).toContain("check the spelling");
	});

	it("tells a Claude Code tool list which pi names to write", () => {
		const ported = entry("definition", { name: "ported", keys: { tools: ["Read", "Glob"] }, body: "x" });
		const result = resolve(input({ type: "ported", loaded: loaded({ definitions: [ported] }) }));
		expect(result.config?.tools).toEqual([]);
		expect(result.diagnostics[0]?.hint).toContain("did you mean read, find?");
	});

	it("drops unknown-kind tools under a restrictive mode with tool-dropped, known ones silently", () => {
		const scout = entry("definition", { name: "scout", keys: { tools: ["read", "bash", "web_fetch"], capability: "read-only" }, body: "x" });
		const result = resolve(
			input({ type: "scout", loaded: loaded({ definitions: [scout] }), parent: parent({ toolUniverse: [...builtinToolNames("linux"), "web_fetch"] }) }),
		);
		expect(result.config?.tools).toEqual(["read"]);
		expect(result.diagnostics.map((d) => d.code)).toEqual(["tool-dropped"]);
		expect(result.diagnostics[0]?.message).toContain("web_fetch");
		expect(result.diagnostics[0]?.message).not.toContain("bash");
	});

	it("lets the request choose a mode but never add a tool", () => {
		const result = resolve(input({ type: "explore", request: { capability: "all" } }));
		expect(result.config?.tools).toEqual(["read", "grep", "find", "ls"]);
		expect(result.config?.capabilityMode).toBe("all");
	});

	it("uses toolKinds from the input to keep a classified extension tool", () => {
		const scout = entry("definition", { name: "scout", keys: { tools: ["read", "web_fetch"], capability: "read-only" }, body: "x" });
		const result = resolve(
			input({
				type: "scout",
				loaded: loaded({ definitions: [scout] }),
				parent: parent({ toolUniverse: [...builtinToolNames("linux"), "web_fetch"] }),
				toolKinds: { "web_*": "read" },
			}),
		);
		expect(result.config?.tools).toEqual(["read", "web_fetch"]);
		expect(result.diagnostics).toEqual([]);
	});
});
