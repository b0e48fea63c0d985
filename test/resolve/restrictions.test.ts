/**
 * Restrictions read from other tools' keys (ADR 0072) as the resolver applies them: a
 * definition's tool rules narrow its tools (never widen them), and a restriction cadre could not
 * read refuses every spawn that uses the entry (`restriction-unread`).
 */
import { describe, expect, it } from "vitest";
import type { ThinkingLevel } from "../../src/core/values.ts";
import type { UnreadRestriction } from "../../src/files/types.ts";
import { resolve } from "../../src/resolve/resolve.ts";
import { applyToolRules } from "../../src/resolve/tools.ts";
import { catalog, entry, input, loaded, parent } from "./support/build.ts";

const catalogWith = (levels: Record<string, ThinkingLevel[]>) => catalog({ levels });

const deny = (...patterns: string[]) => patterns.map((pattern) => ({ pattern, allow: false }));
const unread = (key: string, where: string): UnreadRestriction => ({ key, where, why: `${key} cannot be read`, fix: `remove ${key}` });

describe("applyToolRules", () => {
	it("removes denied names and globs; the most specific (last) matching rule wins; unmatched names stay", () => {
		const tools = ["read", "bash", "edit", "write", "mcp_a", "mcp_b"];
		expect(applyToolRules(tools, deny("write", "edit"))).toEqual(["read", "bash", "mcp_a", "mcp_b"]);
		expect(applyToolRules(tools, deny("mcp_*"))).toEqual(["read", "bash", "edit", "write"]);
		expect(applyToolRules(tools, [{ pattern: "*", allow: false }, { pattern: "read", allow: true }, { pattern: "mcp_b", allow: true }])).toEqual(["read", "mcp_b"]);
		expect(applyToolRules(tools, [{ pattern: "zap", allow: true }])).toEqual(tools);
	});
});

describe("tool rules from a definition", () => {
	it("takes denied tools away from the parent's tools when the definition has no tools key", () => {
		const safe = entry("definition", { name: "safe", keys: { tool_rules: deny("Write", "write", "Edit", "edit") } });
		const result = resolve(input({ type: "safe", loaded: loaded({ definitions: [safe] }) }));
		expect(result.refused).toBeNull();
		expect(result.config?.tools).toEqual(["read", "bash"]);
	});

	it("narrows the definition's own tools list, and a request capability cannot bring a denied tool back", () => {
		const safe = entry("definition", { name: "safe", keys: { tools: ["read", "bash", "write"], tool_rules: deny("bash") } });
		const result = resolve(input({ type: "safe", request: { capability: "all" }, loaded: loaded({ definitions: [safe] }) }));
		expect(result.config?.tools).toEqual(["read", "write"]);
	});

	it("keeps pi's built-ins only when every other tool is denied", () => {
		const rules = [{ pattern: "*", allow: false }, ...["read", "bash", "edit", "write", "grep", "find", "ls"].map((pattern) => ({ pattern, allow: true }))];
		const hermit = entry("definition", { name: "hermit", keys: { tools: "all", tool_rules: rules } });
		const result = resolve(
			input({ type: "hermit", loaded: loaded({ definitions: [hermit] }), parent: parent({ toolUniverse: ["read", "bash", "edit", "write", "grep", "find", "ls", "web_fetch"] }) }),
		);
		expect(result.config?.tools).toEqual(["read", "bash", "edit", "write", "grep", "find", "ls"]);
	});
});

describe("restriction-unread", () => {
	it("refuses a definition with a restriction cadre could not read, naming the key, where it is and the fix", () => {
		const grok = entry("definition", { name: "grok", unread: [unread("tool_config", ".pi/agents/grok.md:3:1")] });
		const result = resolve(input({ type: "grok", loaded: loaded({ definitions: [grok] }) }));
		expect(result.refused?.code).toBe("restriction-unread");
		expect(result.refused?.message).toContain("tool_config");
		expect(result.refused?.message).toContain(".pi/agents/grok.md:3:1");
		expect(result.refused?.message).toContain("remove tool_config");
		expect(result.config).not.toBeNull();
	});

	it("refuses for the type's role and for the persona the spawn uses, not for an unused persona", () => {
		const scout = entry("definition", { name: "scout", body: "Scout." });
		const role = entry("role", { name: "scout", unread: [unread("disallowedTools", ".pi/roles/scout.md:2:1")] });
		expect(resolve(input({ type: "scout", loaded: loaded({ definitions: [scout], roles: [role] }) })).refused?.code).toBe("restriction-unread");
		const calm = entry("persona", { name: "calm", body: "Be calm.", unread: [unread("permissionMode", ".pi/personas/calm.md:2:1")] });
		const without = loaded({ definitions: [scout], personas: [calm] });
		expect(resolve(input({ type: "scout", loaded: without })).refused).toBeNull();
		expect(resolve(input({ type: "scout", request: { persona: "calm" }, loaded: without })).refused?.code).toBe("restriction-unread");
	});

	it("reports a disabled type as disabled first", () => {
		const grok = entry("definition", { name: "grok", keys: { enabled: false }, unread: [unread("tool_config", ".pi/agents/grok.md:3:1")] });
		expect(resolve(input({ type: "grok", loaded: loaded({ definitions: [grok] }) })).refused?.code).toBe("disabled-type");
	});
});

describe("thinking-clamped", () => {
	it("points at the thinking key that named the clamped level: file, line and column", () => {
		const scout = entry("definition", { name: "scout", keys: { thinking: "max" } });
		(scout.keys.thinking as { column?: number }).column = 3;
		const result = resolve(
			input({ type: "scout", loaded: loaded({ definitions: [scout] }), models: catalogWith({ "test/parent": ["off", "low", "medium", "high"] }) }),
		);
		expect(result.diagnostics.find((d) => d.code === "thinking-clamped")).toMatchObject({ file: ".pi/agents/scout.md", line: 2, column: 3 });
	});

	it("points at a settings pin's key", () => {
		const scout = entry("definition", { name: "scout" });
		const pins = { scout: { value: "max" as const, source: "settings:.pi/subagents.json:2", column: 15 } };
		const result = resolve(
			input({ type: "scout", loaded: loaded({ definitions: [scout], settings: { thinking: pins } }), models: catalogWith({ "test/parent": ["off", "high"] }) }),
		);
		expect(result.diagnostics.find((d) => d.code === "thinking-clamped")).toMatchObject({ file: ".pi/subagents.json", line: 2, column: 15 });
	});

	it("has no position when the request or the parent named the level", () => {
		const result = resolve(input({ request: { thinking: "max" }, models: catalogWith({ "test/parent": ["off", "high"] }) }));
		expect(result.diagnostics.find((d) => d.code === "thinking-clamped")).toMatchObject({ file: null, line: null, column: null });
	});
});

describe("an access key cadre cannot read never widens access (ADR 0064)", () => {
	it("refuses a definition whose capability value is invalid instead of running it with every tool", () => {
		const scout = entry("definition", { name: "scout", invalid: { capability: "readonyl" } });
		const result = resolve(input({ type: "scout", loaded: loaded({ definitions: [scout] }) }));
		expect(result.refused?.code).toBe("restriction-unread");
		expect(result.refused?.message).toContain('"readonyl"');
		expect(result.refused?.message).toContain(".pi/agents/scout.md:2");
	});

	it("refuses a role whose invalid capability would have won; a valid role value or a request value above it is fine", () => {
		const scout = entry("definition", { name: "scout", keys: { capability: "read-only" } });
		const badRole = entry("role", { name: "scout", invalid: { capability: "nope" } });
		const refused = resolve(input({ type: "scout", loaded: loaded({ definitions: [scout], roles: [badRole] }) }));
		expect(refused.refused?.code).toBe("restriction-unread");
		expect(refused.refused?.message).toContain("of the role");
		const requested = resolve(input({ type: "scout", request: { capability: "read-only" }, loaded: loaded({ definitions: [scout], roles: [badRole] }) }));
		expect(requested.refused).toBeNull();
		const goodRole = entry("role", { name: "scout", keys: { capability: "read-only" } });
		const badDefinition = entry("definition", { name: "scout", invalid: { capability: "nope" } });
		expect(resolve(input({ type: "scout", loaded: loaded({ definitions: [badDefinition], roles: [goodRole] }) })).refused).toBeNull();
	});

	it("refuses a definition whose tools list cannot be read instead of giving the child the parent's tools", () => {
		const scout = entry("definition", { name: "scout", invalid: { tools: [] } });
		const result = resolve(input({ type: "scout", loaded: loaded({ definitions: [scout] }) }));
		expect(result.refused?.code).toBe("restriction-unread");
		expect(result.refused?.message).toContain("tools []");
		expect(result.refused?.message).toContain("none");
	});
});
