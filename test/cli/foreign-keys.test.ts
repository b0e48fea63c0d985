/**
 * Files written for other tools, through the real bin: `cadre check` and `cadre explain` show what
 * a foreign restriction key was read as (ADR 0072), refuse what cannot be read, report tool names
 * that match no pi tool at their key (ADR 0074), and position `thinking-clamped` on the key.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sandboxPlatform } from "../../src/sandbox/platform.ts";
import { cliTree, runCli, runCliJson, testModels } from "../support/cli.ts";

interface Diagnostic {
	severity: string;
	file: string | null;
	line: number | null;
	column: number | null;
	code: string;
	message: string;
	hint?: string;
}

interface ExplainJson {
	refused: { code: string; message: string } | null;
	config: { tools: string[]; capabilityMode: string | null } | null;
	trace: Record<string, { value: unknown; layer: string; source: string }>;
	diagnostics: Diagnostic[];
}

interface CheckJson {
	ok: boolean;
	errors: number;
	warnings: number;
	diagnostics: Diagnostic[];
}


function project(files: Record<string, string>): { dir: string; env: Record<string, string> } {
	const root = cliTree("cadre-foreign-", testModels(), files);
	mkdirSync(join(root, "project", ".git"), { recursive: true });
	return { dir: join(root, "project"), env: { PI_CODING_AGENT_DIR: join(root, "agent"), HOME: join(root, "home") } };
}

const explainJson = (p: { dir: string; env: Record<string, string> }, type: string) =>
	runCliJson<ExplainJson>(["explain", type, "--cwd", p.dir, "--parent-model", "test/parent-model"], { env: p.env });

const at = (d: Diagnostic) => `${d.file}:${d.line}:${d.column} ${d.severity} ${d.code}`;

describe("foreign restriction keys", () => {
	it("a Claude Code deny list leaves the child without the denied tools, and explain says why", () => {
		const p = project({ "project/.pi/agents/safe.md": "---\nname: safe\ndescription: Safe helper\ndisallowedTools: Write, Edit\n---\nHelp.\n" });
		const run = explainJson(p, "safe");
		expect(run.code).toBe(0);
		expect(run.json.config?.tools).toEqual(["read", "bash"]);
		expect(run.json.diagnostics.map(at)).toEqual([".pi/agents/safe.md:4:1 warning foreign-key"]);
		const human = runCli(["explain", "safe", "--cwd", p.dir, "--parent-model", "test/parent-model"], { env: p.env });
		expect(human.stdout).toMatch(/tools\s+read, bash/);
		expect(human.stdout).toContain(".pi/agents/safe.md:4:1 warning foreign-key disallowedTools");
	});

	it("permissionMode: plan makes the child read-only, traced to the foreign key", () => {
		const p = project({ "project/.pi/agents/planner.md": "---\ndescription: Plans\npermissionMode: plan\n---\nPlan.\n" });
		const run = explainJson(p, "planner");
		// A read-only child keeps bash where it runs sandboxed (ADR 0185).
		expect(run.json.config).toMatchObject({ capabilityMode: "read-only", tools: sandboxPlatform().available ? ["read", "bash"] : ["read"] });
		expect(run.json.trace.capabilityMode).toMatchObject({ layer: "definition", source: ".pi/agents/planner.md:3" });
	});

	it("two foreign keys each keep their own restriction: a later key's allow never gives back what an earlier key denied", () => {
		const p = project({
			"project/.pi/agents/scout.md": "---\ndescription: Scout\ntools: read, grep, bash\nexcludeTools: bash\nextensions:\n---\nLook.\n",
			"project/.pi/agents/helper.md": "---\ndescription: Helper\ndisallowed_tools: write\nisolated: true\n---\nHelp.\n",
		});
		expect(explainJson(p, "scout").json.config?.tools).toEqual(["read", "grep"]);
		expect(explainJson(p, "helper").json.config?.tools).toEqual(["read", "bash", "edit"]);
	});

	it("opencode's tools and permission maps narrow the tools instead of being dropped", () => {
		const p = project({
			"project/.pi/agents/review.md": "---\ndescription: Review\nmode: subagent\ntools:\n  write: false\n  edit: false\npermission:\n  bash: deny\n---\nReview.\n",
		});
		const run = explainJson(p, "review");
		expect(run.code).toBe(0);
		expect(run.json.config?.tools).toEqual(["read"]);
	});

	it("refuses a spawn whose file restricts access in a way cadre cannot read, and check fails on it", () => {
		const p = project({ "project/.pi/agents/hooked.md": "---\ndescription: Hooked\nhooks:\n  PreToolUse:\n    - matcher: Bash\n---\nWork.\n" });
		const run = explainJson(p, "hooked");
		expect(run.code).toBe(1);
		expect(run.json.refused?.code).toBe("restriction-unread");
		expect(run.json.refused?.message).toContain("hooks");
		expect(run.json.refused?.message).toContain(".pi/agents/hooked.md:3:1");
		const check = runCliJson<CheckJson>(["check", "--cwd", p.dir], { env: p.env });
		expect(check.code).toBe(1);
		expect(check.json.diagnostics.map(at)).toEqual([".pi/agents/hooked.md:3:1 error restriction-unread"]);
		expect(check.json.diagnostics[0]?.hint).toBeTruthy();
	});

	it("check shows what every foreign key of a Claude Code file was read as", () => {
		const p = project({
			"project/.pi/agents/port.md": "---\nname: port\ndescription: Ported\ncolor: blue\npermissionMode: plan\ndisallowedTools: Bash\n---\nWork.\n",
		});
		const run = runCli(["check", "--cwd", p.dir], { env: p.env });
		expect(run.code).toBe(0);
		expect(run.stdout).toContain(".pi/agents/port.md:4:1 warning unknown-key color");
		expect(run.stdout).toMatch(/port\.md:5:1 warning foreign-key permissionMode .*capability: read-only/);
		expect(run.stdout).toMatch(/port\.md:6:1 warning foreign-key disallowedTools .*never gets .*bash/);
	});
});

describe("tool names that match no pi tool", () => {
	it("check reports the Claude Code tool names of one key once, at the key, with pi's names", () => {
		const p = project({ "project/.pi/agents/claude.md": "---\ndescription: From Claude\ntools: Read, Grep, Glob\n---\nLook.\n" });
		const run = runCliJson<CheckJson>(["check", "--cwd", p.dir], { env: p.env });
		expect(run.json.diagnostics.map(at)).toEqual([".pi/agents/claude.md:3:8 warning unknown-tool"]);
		expect(run.json.diagnostics[0]?.message).toBe("3 tools of definition claude match no pi tool: Read (did you mean read?), Grep (did you mean grep?), Glob (did you mean find?)");
		expect(run.json.diagnostics[0]?.hint).toContain("write read, grep, find");
	});

	it("groups a long MCP tool list into one diagnostic naming the count, the first names and the toolKinds pattern", () => {
		const names = Array.from({ length: 90 }, (_, i) => `mcp__github__tool_${i}`);
		const p = project({ "project/.pi/agents/mcp.md": `---\ndescription: MCP\ntools: Read, ${names.join(", ")}\n---\nWork.\n` });
		const run = runCliJson<CheckJson>(["check", "--cwd", p.dir], { env: p.env });
		expect(run.json.diagnostics.map(at)).toEqual([".pi/agents/mcp.md:3:8 warning unknown-tool"]);
		const [d] = run.json.diagnostics;
		expect(d?.message).toMatch(/^91 tools of definition mcp match no pi tool: Read \(did you mean read\?\), mcp__github__tool_0, mcp__github__tool_1, mcp__github__tool_2, mcp__github__tool_3 and 86 more$/);
		expect(d?.hint).toContain('"mcp__github__*": "read"');
	});

	it("positions each entry of a YAML list, and says how to silence a name that may be an extension tool", () => {
		const p = project({ "project/.pi/agents/web.md": "---\ndescription: Web\ntools:\n  - read\n  - web_fetch\n  - mcp_*\n---\nFetch.\n" });
		const run = runCliJson<CheckJson>(["check", "--cwd", p.dir], { env: p.env });
		expect(run.json.diagnostics.map(at)).toEqual([".pi/agents/web.md:5:5 warning unknown-tool"]);
		expect(run.json.diagnostics[0]?.message).toContain("web_fetch");
		expect(run.json.diagnostics[0]?.hint).toContain("toolKinds");
	});

	it("knows extension tools classified in the user's toolKinds, by name or pattern", () => {
		const p = project({
			"agent/subagents.json": '{"toolKinds": {"web_fetch": "read", "mcp_github_*": "read"}}',
			"project/.pi/agents/web.md": "---\ndescription: Web\ntools: read, web_fetch, mcp_github_issue\n---\nFetch.\n",
		});
		const run = runCliJson<CheckJson>(["check", "--cwd", p.dir], { env: p.env });
		expect(run.json.diagnostics).toEqual([]);
	});
});

describe("thinking-clamped", () => {
	it("is positioned at the definition's thinking key", () => {
		const p = project({ "project/.pi/agents/deep.md": "---\ndescription: Deep\nmodel: test/model-a\nthinking: max\n---\nThink.\n" });
		const run = explainJson(p, "deep");
		const clamped = run.json.diagnostics.find((d) => d.code === "thinking-clamped");
		expect(clamped).toMatchObject({ file: ".pi/agents/deep.md", line: 4, column: 1 });
	});

	it("is positioned at a settings pin's key", () => {
		const p = project({
			"project/.pi/agents/deep.md": "---\ndescription: Deep\nmodel: test/model-a\n---\nThink.\n",
			"project/.pi/subagents.json": '{\n  "thinking": {"deep": "max"}\n}\n',
		});
		const run = explainJson(p, "deep");
		expect(run.json.diagnostics.find((d) => d.code === "thinking-clamped")).toMatchObject({ file: ".pi/subagents.json", line: 2, column: 16 });
	});
});
