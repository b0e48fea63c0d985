/**
 * Other tools' restriction keys (ADR 0072): the one table of what cadre makes of each foreign key
 * (mapped, refused, ignored), read over plain values, and what the loader does with it — a key
 * that restricts access never widens it.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { describeMapping, FOREIGN_KEYS, foreignKeyFor, foreignToolName, piToolFor, readForeignKey } from "../../src/files/foreign-keys.ts";
import { layout, where } from "./fixture.ts";

const read = (key: string, value: unknown) => readForeignKey(key, value);
const denied = (key: string, value: unknown) => {
	const reading = read(key, value);
	if (reading?.outcome !== "mapped") throw new Error(`${key} is not mapped: ${JSON.stringify(reading)}`);
	return (reading.values.toolRules ?? []).filter((rule) => !rule.allow).map((rule) => rule.pattern);
};

describe("the foreign key table", () => {
	it("maps permission modes that restrict to a capability and refuses the ones it cannot read", () => {
		expect(read("permissionMode", "plan")).toMatchObject({ outcome: "mapped", values: { capability: "read-only" } });
		expect(read("permission_mode", "Plan")).toMatchObject({ outcome: "mapped", values: { capability: "read-only" } });
		for (const mode of ["default", "acceptEdits", "bypassPermissions", "auto"]) expect(read("permissionMode", mode)?.outcome).toBe("ignored");
		expect(read("permissionMode", "dontAsk")).toMatchObject({ outcome: "refused" });
		expect(read("permissionMode", "paranoid")).toMatchObject({ outcome: "refused" });
		expect(read("permissionMode", 3)).toMatchObject({ outcome: "refused" });
	});

	it("maps readonly: true, grok-build's capability_mode and opencode's disable", () => {
		expect(read("readonly", true)).toMatchObject({ outcome: "mapped", values: { capability: "read-only" } });
		expect(read("readonly", false)?.outcome).toBe("ignored");
		expect(read("readonly", "yes please")?.outcome).toBe("refused");
		expect(read("capability_mode", "read_only")).toMatchObject({ outcome: "mapped", values: { capability: "read-only" } });
		expect(read("capability_mode", "sandboxed")?.outcome).toBe("refused");
		expect(read("disable", true)).toMatchObject({ outcome: "mapped", values: { enabled: false } });
		expect(read("disable", false)?.outcome).toBe("ignored");
	});

	it("turns deny lists into rules with Claude's tool names mapped to pi's, keeping the name as written", () => {
		expect(denied("disallowedTools", "Write, Edit")).toEqual(["Write", "write", "Edit", "edit"]);
		expect(denied("disallowedTools", ["MultiEdit", "Glob", "LS", "Bash(git push:*)"])).toEqual(["MultiEdit", "edit", "Glob", "find", "LS", "ls", "Bash", "bash"]);
		expect(denied("disallowed_tools", "bash")).toEqual(["bash"]);
		expect(denied("excludeTools", ["write", "mcp_*"])).toEqual(["write", "mcp_*"]);
		const notes = read("disallowedTools", "WebFetch, Bash(rm:*)");
		expect(notes?.outcome === "mapped" && notes.notes.join(" ")).toMatch(/WebFetch.*no pi built-in tool/);
		expect(notes?.outcome === "mapped" && notes.notes.join(" ")).toContain("Bash(rm:*)");
		expect(read("disallowedTools", { Write: true })?.outcome).toBe("refused");
		expect(read("disallowedTools", "")?.outcome).toBe("ignored");
	});

	it("reads opencode's tools map (most specific pattern wins) and claims `tools` only when it is a map", () => {
		expect(foreignKeyFor("tools", ["read"])).toBeNull();
		expect(foreignKeyFor("tools", "read, grep")).toBeNull();
		expect(foreignKeyFor("tools", { write: false })?.key).toBe("tools");
		expect(denied("tools", { write: false, edit: false, glob: false })).toEqual(["edit", "glob", "find", "write"]);
		const reading = read("tools", { "*": false, read: true });
		expect(reading).toMatchObject({ outcome: "mapped", values: { toolRules: [{ pattern: "*", allow: false }, { pattern: "read", allow: true }] } });
		expect(read("tools", { read: true })?.outcome).toBe("ignored");
		expect(read("tools", { write: "no" })?.outcome).toBe("refused");
		expect(read("tools", { "w?ite": false })?.outcome).toBe("refused");
	});

	it("reads opencode's permission: edit covers write, ask is deny, command patterns deny the whole tool", () => {
		expect(denied("permission", { edit: "deny" })).toEqual(["edit", "write"]);
		expect(denied("permission", { edit: "ask", bash: { "*": "ask", "git diff": "allow" }, webfetch: "deny" })).toEqual(["bash", "edit", "write", "webfetch"]);
		expect(read("permission", { bash: { "git *": "allow" } })?.outcome).toBe("ignored");
		expect(read("permission", { edit: "allow" })?.outcome).toBe("ignored");
		expect(read("permission", { external_directory: "deny" })?.outcome).toBe("refused");
		expect(read("permission", { external_directory: "allow", doom_loop: "ask" })?.outcome).toBe("ignored");
		expect(denied("permission", "deny")).toEqual(["*"]);
		expect(read("permission", { edit: 1 })?.outcome).toBe("refused");
	});

	it("keeps built-ins only for extensions: false / isolated: true, and refuses what it cannot tell apart", () => {
		const builtinsOnly = read("extensions", false);
		expect(builtinsOnly).toMatchObject({ outcome: "mapped" });
		expect(builtinsOnly?.outcome === "mapped" && builtinsOnly.values.toolRules?.[0]).toEqual({ pattern: "*", allow: false });
		expect(read("extensions", null)?.outcome).toBe("mapped");
		expect(read("extensions", [])?.outcome).toBe("mapped");
		expect(read("extensions", true)?.outcome).toBe("ignored");
		expect(read("extensions", ["mcp"])?.outcome).toBe("refused");
		expect(read("isolated", true)?.outcome).toBe("mapped");
		expect(read("exclude_extensions", "pi-notify")?.outcome).toBe("refused");
		expect(read("launcher", "net")?.outcome).toBe("refused");
		expect(read("machine", "workmac")?.outcome).toBe("refused");
	});

	it("refuses hooks that can block tool calls and grok-build's tool_config; ignores the rest", () => {
		expect(read("hooks", { PreToolUse: [{ matcher: "Bash" }] })?.outcome).toBe("refused");
		expect(read("hooks", { PostToolUse: [{ matcher: "Edit" }] })?.outcome).toBe("ignored");
		expect(read("tool_config", { bash: { enabled: false } })?.outcome).toBe("refused");
		for (const key of ["color", "mcpServers", "skills", "memory", "background", "mode", "temperature", "allowedAgents", "maxSubagentDepth"]) {
			expect(read(key, "x")?.outcome, key).toBe("ignored");
		}
	});

	it("names the tools that write each key, and knows no cadre key except tools-as-a-map", () => {
		for (const [key, spec] of FOREIGN_KEYS) {
			expect(spec.from.length, key).toBeGreaterThan(0);
			expect(["description", "model", "thinking", "isolation", "capability", "enabled", "name"]).not.toContain(key);
		}
		expect(foreignKeyFor("constructor", "x")).toBeNull();
		expect(foreignKeyFor("max_turn", 3)).toBeNull();
	});

	it("reads any value of any foreign key without throwing, and a mapping only ever denies or narrows", () => {
		fc.assert(
			fc.property(fc.constantFrom(...FOREIGN_KEYS.keys()), fc.anything({ withBigInt: true, withNullPrototype: true }), (key, value) => {
				const reading = readForeignKey(key, value);
				if (reading?.outcome !== "mapped") return;
				expect(describeMapping(reading.values)).not.toBe("");
				// Only grok-build's capability_mode names a mode of its own; every other mapping is read-only.
				if (key !== "capability_mode" && reading.values.capability !== undefined) expect(reading.values.capability).toBe("read-only");
				expect(reading.values.enabled).not.toBe(true);
				for (const rule of reading.values.toolRules ?? []) expect(typeof rule.pattern).toBe("string");
			}),
			{ numRuns: Number(process.env.CADRE_FUZZ_RUNS ?? 500) },
		);
	});

	it("maps other tools' names for pi's built-ins, case-insensitively", () => {
		expect(["Read", "Write", "Edit", "MultiEdit", "Bash", "Grep", "Glob", "LS"].map((name) => piToolFor(name))).toEqual(["read", "write", "edit", "edit", "bash", "grep", "find", "ls"]);
		expect(["glob", "list", "read_file", "run_shell_command"].map((name) => piToolFor(name))).toEqual(["find", "ls", "read", "bash"]);
		expect(piToolFor("WebFetch")).toBeNull();
		expect(piToolFor("constructor")).toBeNull();
	});
});

describe("loading foreign restriction keys", () => {
	it("maps permissionMode: plan to the definition's capability, sourced at the foreign key, with a warning", () => {
		const r = layout({ "project/.pi/agents/planner.md": "---\ndescription: Plans\npermissionMode: plan\n---\nPlan.\n" }).load();
		expect(r.definitions.get("planner")?.keys.capability).toMatchObject({ value: "read-only", source: ".pi/agents/planner.md:3" });
		expect(where(r)).toEqual([".pi/agents/planner.md:3:1 foreign-key"]);
		expect(r.diagnostics[0]).toMatchObject({ severity: "warning" });
		expect(r.diagnostics[0]?.message).toContain("capability: read-only");
		expect(r.diagnostics[0]?.message).toContain("Claude Code");
	});

	it("keeps a deny list as the definition's tool rules and says what the child never gets", () => {
		const r = layout({ "project/.pi/agents/safe.md": "---\ndescription: Safe\ndisallowedTools: Write, Edit\n---\n" }).load();
		const rules = r.definitions.get("safe")?.keys.tool_rules;
		expect(rules?.source).toBe(".pi/agents/safe.md:3");
		expect(rules?.value.filter((rule) => !rule.allow).map((rule) => rule.pattern)).toContain("write");
		expect(where(r)).toEqual([".pi/agents/safe.md:3:1 foreign-key"]);
		expect(r.diagnostics[0]?.message).toMatch(/never gets.*write.*edit/);
	});

	it("reads opencode's tools map instead of rejecting it as a bad tools value", () => {
		const r = layout({ "project/.pi/agents/review.md": "---\ndescription: Review\ntools:\n  write: false\n  edit: false\n---\n" }).load();
		expect(r.diagnostics.map((d) => d.code)).toEqual(["foreign-key"]);
		expect(r.definitions.get("review")?.keys.tools).toBeUndefined();
		expect(r.definitions.get("review")?.keys.tool_rules?.value.map((rule) => rule.pattern)).toEqual(["edit", "write"]);
	});

	it("records a restriction it cannot read as an error at the key, and on the entry for the resolver", () => {
		const r = layout({ "project/.pi/agents/grok.md": "---\ndescription: Grok\ntool_config:\n  bash: off\n---\n" }).load();
		expect(where(r)).toEqual([".pi/agents/grok.md:3:1 restriction-unread"]);
		expect(r.diagnostics[0]).toMatchObject({ severity: "error" });
		expect(r.diagnostics[0]?.hint).toBeTruthy();
		expect(r.definitions.get("grok")?.unread).toEqual([expect.objectContaining({ key: "tool_config", where: ".pi/agents/grok.md:3:1" })]);
	});

	it("refuses a foreign capability that disagrees with the file's own capability key, whatever the order", () => {
		const r = layout({ "project/.pi/agents/mixed.md": "---\ncapability: all\nreadonly: true\n---\n" }).load();
		expect(r.definitions.get("mixed")?.keys.capability?.value).toBe("all");
		expect(r.definitions.get("mixed")?.unread.map((u) => u.key)).toEqual(["readonly"]);
		const agree = layout({ "project/.pi/agents/same.md": "---\npermissionMode: plan\ncapability: read-only\n---\n" }).load();
		expect(agree.definitions.get("same")?.unread).toEqual([]);
		expect(agree.definitions.get("same")?.keys.capability).toMatchObject({ value: "read-only", source: ".pi/agents/same.md:3" });
	});

	it("maps a foreign capability on a role, and refuses restrictions a role or persona cannot hold", () => {
		const r = layout({
			"project/.pi/agents/scout.md": "---\ndescription: Scout\n---\n",
			"project/.pi/roles/scout.md": "---\nreadonly: true\ndisallowedTools: Bash\n---\n",
			"project/.pi/personas/calm.md": "---\npermissionMode: plan\n---\nStay calm.\n",
		}).load();
		expect(r.roles.get("scout")?.keys.capability?.value).toBe("read-only");
		expect(r.roles.get("scout")?.unread.map((u) => u.key)).toEqual(["disallowedTools"]);
		expect(r.personas.get("calm")?.unread.map((u) => u.key)).toEqual(["permissionMode"]);
	});

	it("keeps every layer's unread restrictions on the merged entry", () => {
		const r = layout({
			"agent/agents/helper.md": "---\nhooks:\n  PreToolUse: []\n---\n",
			"project/.pi/agents/helper.md": "---\ndescription: Project helper\n---\n",
		}).load();
		expect(r.definitions.get("helper")?.unread.map((u) => u.key)).toEqual(["hooks"]);
	});
});

describe("what cadre import needs from the table (issue 12)", () => {
	it("names other tools' keys for cadre keys under another name (renamed)", () => {
		expect(read("background", true)).toMatchObject({ outcome: "renamed", key: "run_in_background", value: true });
		expect(read("async", false)).toMatchObject({ outcome: "renamed", key: "run_in_background", value: false });
		expect(read("maxTurns", 12)).toMatchObject({ outcome: "renamed", key: "max_turns", value: 12 });
		expect(read("developer_instructions", "Review.")).toMatchObject({ outcome: "renamed", key: "body", value: "Review." });
		expect(read("model_reasoning_effort", "high")).toMatchObject({ outcome: "renamed", key: "thinking", value: "high" });
		expect(read("reasoningEffort", "low")).toMatchObject({ outcome: "renamed", key: "thinking", value: "low" });
		expect(read("prompt", "{file:./p.txt}")).toMatchObject({ outcome: "renamed", key: "body" });
		expect(read("defaultContext", "fork")).toMatchObject({ outcome: "renamed", key: "inherit_context", value: true });
		expect(read("defaultContext", "fresh")).toMatchObject({ outcome: "renamed", key: "inherit_context", value: false });
		expect(read("defaultContext", "sideways")?.outcome).toBe("ignored");
	});

	it("reads opencode's steps and maxSteps as max_turns (issue 19)", () => {
		expect(read("steps", 12)).toMatchObject({ outcome: "renamed", key: "max_turns", value: 12 });
		expect(read("maxSteps", 5)).toMatchObject({ outcome: "renamed", key: "max_turns", value: 5 });
	});

	it("reads Codex's sandbox_mode like a permission mode: read-only maps, workspace-write is the nearest capability that allows no more", () => {
		expect(read("sandbox_mode", "read-only")).toMatchObject({ outcome: "mapped", values: { capability: "read-only" } });
		expect(read("sandbox_mode", "workspace-write")).toMatchObject({ outcome: "mapped", values: { capability: "read-only" }, notes: [expect.stringContaining("nearest")] });
		expect(read("sandbox_mode", "danger-full-access")?.outcome).toBe("ignored");
		expect(read("sandbox_mode", 7)?.outcome).toBe("refused");
		expect(read("approval_policy", "never")?.outcome).toBe("ignored");
		expect(read("runner", { type: "external-cli", command: "x" })?.outcome).toBe("refused");
		expect(read("inherit_extensions", false)?.outcome).toBe("mapped");
		for (const key of ["nickname_candidates", "mcp_servers", "web_search", "advertise", "aliases", "acceptance", "output", "defaultReads"]) {
			expect(read(key, "x")?.outcome, key).toBe("ignored");
		}
	});

	it("gives each other tool's tool name its pi name, or says why it has none", () => {
		const to = (name: string) => foreignToolName(name);
		expect(["Read", "Grep", "Glob", "LS", "Bash", "Edit", "MultiEdit", "Write"].map((name) => to(name).name)).toEqual(["read", "grep", "find", "ls", "bash", "edit", "edit", "write"]);
		expect(to("Read").outcome).toBe("mapped");
		// pi has no MCP tool of its own: a kept MCP name is approximated, never "mapped" (issue 19).
		expect(to("mcp__github__create_pull_request")).toMatchObject({ outcome: "approximated", name: "mcp__github__create_pull_request", kept: true });
		expect(to("mcp__my-server__do")).toMatchObject({ outcome: "approximated", name: "mcp__my_server__do" });
		expect(to("mcp:github/search_repositories")).toMatchObject({ outcome: "approximated", name: "mcp__github__search_repositories", kept: true });
		expect(to("mcp:chrome-devtools")).toMatchObject({ outcome: "mapped", name: "mcp__chrome_devtools__*" });
		expect(to("mcp_*")).toMatchObject({ outcome: "mapped", name: "mcp__*" });
		expect(to("mcp_github_*")).toMatchObject({ outcome: "mapped", name: "mcp__github__*" });
		expect(to("ext:mcp/search")).toMatchObject({ outcome: "approximated", name: "search" });
		expect(to("ext:mcp")).toMatchObject({ outcome: "dropped", name: null });
		for (const name of ["Task", "Agent", "Task(reviewer)", "WebFetch", "WebSearch", "web_fetch", "TodoWrite", "NotebookEdit"]) {
			const reading = to(name);
			expect(reading, name).toMatchObject({ outcome: "dropped", name: null });
			expect(reading.why, name).not.toBe("");
		}
		// A pattern allows some uses only: the tool is left out rather than allowed entirely.
		expect(to("Bash(git log:*)")).toMatchObject({ outcome: "dropped", name: null });
		expect(to("Bash(git log:*)").fix).toContain("bash");
		// `Bash(*)` allows every command: it is bash itself (issue 19), as is `Bash()` and `Bash`.
		for (const name of ["Bash(*)", "Bash( * )", "Bash()", "Bash", "bash"]) expect(to(name), name).toMatchObject({ outcome: "mapped", name: "bash" });
		expect(to("Read(*)")).toMatchObject({ outcome: "mapped", name: "read" });
		expect(to("patch")).toMatchObject({ outcome: "mapped", name: "edit" });
		expect(to("lint_everything")).toMatchObject({ outcome: "approximated", name: "lint_everything" });
		expect(to("*")).toMatchObject({ outcome: "mapped", name: "*" });
	});
});

describe("loading a key cadre has under another name", () => {
	it("is ignored with an unknown-key warning that names the cadre key (a camelCase spelling stays an error)", () => {
		const r = layout({ "project/.pi/agents/claude.md": "---\ndescription: From Claude\nmaxTurns: 5\nreasoningEffort: high\n---\nWork.\n" }).load();
		expect(where(r)).toEqual([".pi/agents/claude.md:3:1 unknown-key", ".pi/agents/claude.md:4:1 unknown-key"]);
		expect(r.diagnostics.map((d) => d.severity)).toEqual(["error", "warning"]);
		expect(r.diagnostics[0]?.message).toContain("max_turns");
		expect(r.diagnostics[1]?.message).toContain("opencode key for cadre's thinking");
		expect(r.diagnostics[1]?.hint).toContain("cadre import --from opencode");
		expect(r.definitions.get("claude")?.keys.max_turns).toBeUndefined();
		expect(r.definitions.get("claude")?.keys.thinking).toBeUndefined();
	});

	it("keeps the Markdown text-key message for a role's prompt", () => {
		const r = layout({ "project/.pi/roles/explore.md": "---\nprompt: Be brief.\n---\n" }).load();
		expect(r.diagnostics.find((d) => d.code === "unknown-key")?.message).toContain("its text is the body");
	});
});
