/**
 * `cadre import --from …` on realistic files of every source (test/fixtures/import/<source>/,
 * written from each tool's documentation, odd cases included: tools as a YAML list, a long
 * description with examples that is not valid YAML, unknown keys, MCP tool names), through the
 * real bin: the report per field, then the round trip — the written files pass `cadre check` and
 * `cadre explain` gives the tools and capability the original file meant (ADR 0094).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { sandboxPlatform } from "../../src/sandbox/platform.ts";
import { expectCheckClean, explain, field, fields, file, importJson, type Project, projectWith, type ReportJson } from "./import-support.ts";

type Run = { code: number | null; json: ReportJson };

describe("--from claude", () => {
	let p: Project;
	let run: Run;
	beforeAll(() => {
		p = projectWith("claude");
		run = importJson(p, "claude");
	});

	it("reports every field of every Claude Code agent", () => {
		expect(run.code).toBe(0);
		expect(run.json).toMatchObject({ ok: true, source: "claude", scope: "project", target: ".pi", searched: [".claude/agents"] });
		expect(run.json.summary).toMatchObject({ create: 4, conflict: 0, skip: 0 });
		const reviewer = file(run.json, ".claude/agents/code-reviewer.md");
		expect(reviewer).toMatchObject({ to: ".pi/agents/code-reviewer.md", action: "create", written: true, name: "code-reviewer" });
		expect(fields(reviewer).map((line) => line.replace(/(description: Use this agent).*/, "$1…"))).toEqual([
			"name mapped → file code-reviewer",
			"description approximated → description: Use this agent…",
			"tools mapped → tools: read, grep, find, ls, bash",
			"model approximated → model: test/claude-sonnet-4-5",
			"color dropped",
			"body mapped → the body (standing instructions)",
		]);
		// The description holds `: ` and inline examples, which YAML rejects; Claude Code reads it as text, and so does import.
		expect(field(reviewer, "description").why).toMatch(/read as text/);
		expect(field(reviewer, "model").why).toContain('picks test/claude-sonnet-4-5 for "sonnet"');
		expect(field(reviewer, "color").fix).toContain("display_name");

		const docs = file(run.json, ".claude/agents/docs-writer.md");
		expect(fields(docs)).toEqual([
			"name mapped → file docs-writer",
			expect.stringMatching(/^description mapped → description: Writes and updates the project's documentation\.\n\nUse it when/),
			"tools approximated → tools: read, write, edit, mcp__github__get_issue",
			"model approximated → model: haiku",
			"maxTurns mapped → max_turns: 15",
			"effort mapped → thinking: high",
			"isolation mapped → isolation: worktree",
			"skills dropped",
			"memory dropped",
			"review-level dropped",
			"body mapped → the body (standing instructions)",
		]);
		expect(field(docs, "tools").why).toMatch(/WebFetch is left out: pi has no built-in web tool; Task is left out: cadre children never get the spawn tools/);
		expect(field(docs, "model").why).toMatch(/^kept as written: no available model matches it/);
		expect(field(docs, "review-level")).toMatchObject({ line: 24, column: 1, why: "cadre has no review-level setting" });
		expect(docs.diagnostics.map((d) => `${d.severity} ${d.code}`)).toEqual(["warning unknown-tool"]);

		const planner = file(run.json, ".claude/agents/planner.md");
		expect(fields(planner)).toEqual([
			"name mapped → file planner",
			"description mapped → description: Plans a change before anyone writes code; read-only.",
			"tools approximated → tools: read, grep, find",
			"disallowedTools approximated → tools: read, grep, find",
			"permissionMode mapped → capability: read-only",
			"model mapped",
			"mcpServers dropped",
			"initialPrompt dropped",
			"body mapped → the body (standing instructions)",
		]);
		// `Bash(git log:*)` allows some commands only: bash is left out rather than allowed entirely.
		expect(field(planner, "tools").why).toContain("cadre cannot allow a tool in part, so bash is left out");

		const guarded = file(run.json, ".claude/agents/guarded.md");
		expect(fields(guarded)).toEqual([
			"name mapped → file guarded",
			"description mapped → description: Runs the test suite and fixes failures.",
			"disallowedTools approximated → tools: read, bash, edit, write, grep, find, ls",
			"hooks dropped → enabled: false",
			"background mapped → run_in_background: true",
			"body mapped → the body (standing instructions)",
		]);
		expect(field(guarded, "hooks").why).toMatch(/PreToolUse hooks can block tool calls.*written disabled \(enabled: false\)/);
	});

	it("writes files that load with no errors and explain as the original meant", () => {
		expectCheckClean(p);
		expect(readFileSync(join(p.dir, ".pi/agents/planner.md"), "utf8")).toBe(
			"---\ndescription: Plans a change before anyone writes code; read-only.\ntools: read, grep, find\ncapability: read-only\n---\n\nProduce a step-by-step plan. End with the files that must change.\n",
		);
		expect(explain(p, "planner").config).toMatchObject({ tools: ["read", "grep", "find"], capabilityMode: "read-only", model: "test/parent-model" });
		const reviewer = explain(p, "code-reviewer");
		expect(reviewer.config).toMatchObject({ tools: ["read", "grep", "find", "ls", "bash"], capabilityMode: null, model: "test/claude-sonnet-4-5" });
		const docs = explain(p, "docs-writer", "read,bash,edit,write,mcp__github__get_issue");
		expect(docs.config).toMatchObject({ tools: ["read", "write", "edit", "mcp__github__get_issue"], isolation: "worktree", maxTurns: 15, reasoningEffort: "high" });
		expect(explain(p, "guarded").refused?.code).toBe("disabled-type");
	});
});

describe("--from opencode", () => {
	let p: Project;
	let run: Run;
	beforeAll(() => {
		p = projectWith("opencode");
		run = importJson(p, "opencode");
	});

	it("reads .opencode/agent, .opencode/agents (nested) and opencode.json's agent entries, skipping primary agents", () => {
		expect(run.code).toBe(0);
		expect(run.json.searched).toEqual([".opencode/agent", ".opencode/agents", "opencode.json"]);
		expect(run.json.summary).toMatchObject({ create: 6, skip: 2 });
		expect(file(run.json, ".opencode/agent/build.md")).toMatchObject({ action: "skip", to: null, reason: expect.stringContaining("primary agent") });
		expect(file(run.json, "opencode.json#agent.plan")).toMatchObject({ action: "skip", reason: expect.stringContaining("opencode's own primary plan agent") });

		expect(fields(file(run.json, ".opencode/agent/review.md"))).toEqual([
			"name mapped → file review",
			"description mapped → description: Reviews code for quality and best practices",
			"mode dropped",
			"model mapped → model: test/claude-sonnet-4-5",
			"temperature dropped",
			"tools approximated → tools: read, grep, find, ls",
			"body mapped → the body (standing instructions)",
		]);
		const docs = file(run.json, ".opencode/agent/docs-writer.md");
		expect(fields(docs)).toEqual([
			"name mapped → file docs-writer",
			"description mapped → description: Writes and maintains project documentation",
			"mode dropped",
			"tools approximated → tools: read, grep, find, ls",
			"permission approximated → tools: read, grep, find, ls",
			"maxSteps mapped → max_turns: 12",
			"hidden dropped",
			"color dropped",
			"body mapped → the body (standing instructions)",
		]);
		expect(field(docs, "permission").why).toContain('edit: "ask" is read as "deny"');
		expect(file(run.json, ".opencode/agents/team/security.md")).toMatchObject({ to: ".pi/agents/team-security.md", name: "team-security" });
		expect(field(file(run.json, ".opencode/agents/team/security.md"), "permission").why).toContain("denies bash entirely");

		const reviewer = file(run.json, "opencode.json#agent.code-reviewer");
		expect(fields(reviewer)).toEqual([
			"name mapped → file code-reviewer",
			"description mapped → description: Reviews code for best practices and potential issues",
			"mode dropped",
			"prompt approximated → the body (standing instructions)",
			"permission approximated → tools: read, bash, grep, find, ls",
		]);
		expect(fields(file(run.json, "opencode.json#agent.deep-thinker"))).toEqual([
			"name mapped → file deep-thinker",
			"description mapped → description: Agent that uses high reasoning effort for complex problems",
			"model mapped → model: test/gpt-5",
			"reasoningEffort mapped → thinking: high",
			"textVerbosity dropped",
			"prompt mapped → the body (standing instructions)",
		]);
		expect(field(file(run.json, "opencode.json#agent.deep-thinker"), "textVerbosity").why).toContain("model option");
		expect(fields(file(run.json, "opencode.json#agent.sandboxed"))).toContain("permission dropped → enabled: false");
	});

	it("round trip: the prompt file's text is the body, and explain keeps only what the permissions allow", () => {
		expectCheckClean(p);
		expect(readFileSync(join(p.dir, ".pi/agents/code-reviewer.md"), "utf8")).toContain("You are a code reviewer. Focus on security");
		expect(explain(p, "code-reviewer").config?.tools).toEqual(["read", "bash", "grep", "find", "ls"]);
		expect(explain(p, "team-security").config?.tools).toEqual(["read", "grep", "find", "ls"]);
		expect(explain(p, "sandboxed").refused?.code).toBe("disabled-type");
	});
});

describe("--from gemini", () => {
	let p: Project;
	let run: Run;
	beforeAll(() => {
		p = projectWith("gemini");
		run = importJson(p, "gemini");
	});

	it("maps Gemini CLI's tool names and MCP wildcards, and disables a remote agent", () => {
		expect(run.code).toBe(0);
		expect(fields(file(run.json, ".gemini/agents/security-auditor.md"))).toEqual([
			"name mapped → file security-auditor",
			"description mapped → description: Specialized in finding security vulnerabilities in code.",
			"kind dropped",
			"tools approximated → tools: read, grep, find, ls, bash, mcp__*",
			"model approximated → model: gemini-3-flash-preview",
			"temperature dropped",
			"max_turns mapped → max_turns: 10",
			"timeout_mins dropped",
			"body mapped → the body (standing instructions)",
		]);
		expect(fields(file(run.json, ".gemini/agents/git-expert.md"))).toEqual([
			"name mapped → file git_expert",
			expect.stringMatching(/^description mapped → description: Git expert agent/),
			"tools mapped → tools: bash, read, mcp__github__*",
			"mcpServers dropped",
			"body mapped → the body (standing instructions)",
		]);
		expect(fields(file(run.json, ".gemini/agents/remote-helper.md"))).toEqual(["name mapped → file remote-helper", "kind dropped → enabled: false", "agent_card_url dropped"]);
	});

	it("round trip", () => {
		expectCheckClean(p);
		expect(explain(p, "security-auditor").config).toMatchObject({ tools: ["read", "grep", "find", "ls", "bash"], maxTurns: 10 });
		expect(explain(p, "remote-helper").refused?.code).toBe("disabled-type");
	});
});

describe("--from codex", () => {
	let p: Project;
	let run: Run;
	beforeAll(() => {
		p = projectWith("codex");
		run = importJson(p, "codex");
	});

	it("reads Codex's TOML agents: developer_instructions is the body, sandbox_mode the capability", () => {
		expect(run.code).toBe(0);
		expect(run.json.files.map((f) => f.to)).toEqual([".pi/agents/builder.md", ".pi/agents/explainer.md", ".pi/agents/reviewer.md"]);
		expect(fields(file(run.json, ".codex/agents/reviewer.toml"))).toEqual([
			"name mapped → file reviewer",
			"description mapped → description: Read-only reviewer: checks a change for correctness, tests and regressions.",
			"model approximated → model: test/gpt-5",
			"model_reasoning_effort mapped → thinking: high",
			"sandbox_mode mapped → capability: read-only",
			"nickname_candidates dropped",
			"developer_instructions mapped → the body (standing instructions)",
		]);
		expect(fields(file(run.json, ".codex/agents/builder.toml"))).toEqual([
			"name mapped → file builder",
			"description mapped → description: Implements small, well-defined changes inside the workspace.",
			"model mapped → model: test/claude-opus-4-1",
			"sandbox_mode approximated → capability: read-only",
			"approval_policy dropped",
			"model_verbosity dropped",
			"developer_instructions mapped → the body (standing instructions)",
			"mcp_servers dropped",
		]);
		// workspace-write is the nearest capability that allows no more (issue 19), not a disabled type.
		expect(field(file(run.json, ".codex/agents/builder.toml"), "sandbox_mode").why).toContain("the nearest capability that allows no more is read-only");
		expect(field(file(run.json, ".codex/agents/builder.toml"), "sandbox_mode").why).toContain("capability: read-write");
	});

	it("round trip", () => {
		expectCheckClean(p);
		// A read-only child keeps bash where it runs sandboxed (ADR 0185).
		expect(explain(p, "reviewer").config).toMatchObject({ capabilityMode: "read-only", tools: sandboxPlatform().available ? ["read", "bash"] : ["read"], model: "test/gpt-5", reasoningEffort: "high" });
		expect(explain(p, "builder").refused).toBeFalsy();
		expect(explain(p, "builder").config).toMatchObject({ capabilityMode: "read-only" });
	});
});

describe("--from tintinweb", () => {
	let p: Project;
	let first: Run;
	let forced: Run;
	beforeAll(() => {
		p = projectWith("tintinweb");
		first = importJson(p, "tintinweb");
		forced = importJson(p, "tintinweb", ["--force"]);
	});

	it("reads .pi/agents and .agents/agents; a file already in .pi/agents is rewritten in place only with --force", () => {
		expect(first.code).toBe(1);
		expect(file(first.json, ".pi/agents/auditor.md")).toMatchObject({ action: "conflict", written: false, reason: expect.stringContaining("already where cadre reads it") });
		expect(fields(file(first.json, ".pi/agents/auditor.md"))).toEqual([
			"name mapped → file auditor",
			"description mapped → description: Security Code Reviewer",
			"tools mapped → tools: read, grep, find, bash",
			"model mapped → model: test/claude-opus-4-1",
			"thinking mapped → thinking: high",
			"max_turns mapped → max_turns: 30",
			"prompt_mode dropped",
			"body mapped → the body (standing instructions)",
		]);
		expect(fields(file(first.json, ".agents/agents/helper.md"))).toEqual([
			"name mapped → file helper",
			"display_name mapped → display_name: Helper",
			"description mapped → description: Small helper that searches and summarises",
			"tools approximated → tools: read, grep, find",
			"disallowed_tools mapped → tools: read, grep, find",
			"extensions approximated → tools: read, grep, find",
			"locked dropped",
			"isolation mapped",
			"max_turns mapped",
			"inherit_context mapped → inherit_context: true",
			"run_in_background mapped → run_in_background: true",
			"persist_session dropped",
			"memory dropped",
			"body mapped → the body (standing instructions)",
		]);
		expect(field(file(first.json, ".agents/agents/helper.md"), "isolation").why).toBe("no isolation is cadre's default");
		expect(field(file(first.json, ".agents/agents/helper.md"), "max_turns").why).toBe("0 means no limit, cadre's default");
		expect(forced.code).toBe(0);
		expect(file(forced.json, ".pi/agents/auditor.md")).toMatchObject({ action: "overwrite", written: true });
		expect(readFileSync(join(p.dir, ".pi/agents/auditor.md"), "utf8")).not.toContain("prompt_mode");
	});

	it("round trip: no prompt_mode warning is left, and explain keeps the deny list over extensions: false", () => {
		expectCheckClean(p);
		expect(explain(p, "helper").config).toMatchObject({ tools: ["read", "grep", "find"], inheritContext: true });
		expect(explain(p, "auditor").config).toMatchObject({ tools: ["read", "grep", "find", "bash"], maxTurns: 30, model: "test/claude-opus-4-1" });
	});
});

describe("--from nicobailon", () => {
	let p: Project;
	let run: Run;
	beforeAll(() => {
		p = projectWith("nicobailon");
		run = importJson(p, "nicobailon", ["--force"]);
	});

	it("reads nested folders (not chains), splits model:level, and maps mcp: tool names", () => {
		expect(run.code).toBe(0);
		expect(run.json.files.map((f) => `${f.from} ${f.action}`)).toEqual([".pi/agents/review/deep-review.md create", ".pi/agents/scout.md overwrite"]);
		const scout = file(run.json, ".pi/agents/scout.md");
		expect(fields(scout)).toEqual([
			"name mapped → file scout",
			"package dropped",
			"description mapped → description: Fast codebase recon",
			"advertise dropped",
			"aliases dropped",
			// mcp:chrome-devtools is mcp__chrome_devtools__*; the empty extensions key then leaves pi's built-ins only.
			"tools mapped → tools: read, grep, find, ls",
			"excludeTools mapped → tools: read, grep, find, ls",
			"extensions approximated → tools: read, grep, find, ls",
			"model approximated → model: test/claude-sonnet-4-5",
			"systemPromptMode dropped",
			"inheritProjectContext dropped",
			"inheritSkills dropped",
			"skills dropped",
			"output dropped",
			"defaultReads dropped",
			"async mapped → run_in_background: true",
			"timeoutMs dropped",
			"acceptanceRole dropped",
			"maxSubagentDepth dropped",
			"allowedAgents dropped",
			"body mapped → the body (standing instructions)",
		]);
		expect(field(scout, "model").why).toContain("the :high suffix is written as thinking: high");
		expect(fields(file(run.json, ".pi/agents/review/deep-review.md"))).toEqual([
			"name mapped → file deep-review",
			"description mapped → description: Independent review of a finished change",
			"tools approximated → tools: read, mcp__github__search_repositories",
			"thinking mapped → thinking: xhigh",
			"defaultContext mapped → inherit_context: true",
			"launcher dropped → enabled: false",
			"body mapped → the body (standing instructions)",
		]);
	});

	it("round trip", () => {
		expectCheckClean(p);
		expect(explain(p, "scout").config).toMatchObject({ tools: ["read", "grep", "find", "ls"], reasoningEffort: "high", runInBackground: true });
	});
});

describe("--from grok", () => {
	let p: Project;
	let run: Run;
	beforeAll(() => {
		p = projectWith("grok");
		run = importJson(p, "grok");
	});

	it("converts .grok/agents, copies TOML personas as they are, and points a role at its prompt file", () => {
		expect(run.code).toBe(0);
		expect(fields(file(run.json, ".grok/agents/builder.md"))).toEqual([
			"name mapped → file builder",
			"description mapped → description: Builds features in its own worktree",
			"prompt_mode dropped",
			"capability_mode mapped → capability: read-write",
			"permission_mode dropped",
			"tools mapped → tools: read, edit, write, grep, find, ls",
			"isolation mapped → isolation: worktree",
			"effort mapped → thinking: high",
			"model mapped → model: test/claude-opus-4-1",
			"body mapped → the body (standing instructions)",
		]);
		expect(fields(file(run.json, ".grok/agents/locked-down.md"))).toContain("tool_config dropped → enabled: false");
		expect(file(run.json, ".grok/personas/reviewer.toml")).toMatchObject({ to: ".pi/personas/reviewer.toml", kind: "persona", action: "create" });
		expect(file(run.json, ".grok/personas/reviewer.toml").fields.every((f) => f.outcome === "mapped")).toBe(true);
		// cadre reads grok-build's TOML natively: the persona is copied byte for byte.
		expect(readFileSync(join(p.dir, ".pi/personas/reviewer.toml"), "utf8")).toBe(readFileSync(join(p.dir, ".grok/personas/reviewer.toml"), "utf8"));
		expect(fields(file(run.json, ".grok/roles/explore.toml"))).toEqual([
			"name mapped → file explore",
			"description mapped → description: Explore the codebase read-only",
			"default_capability_mode mapped → capability: read-only",
			"reasoning_effort mapped → thinking: low",
			"prompt_file approximated → prompt_file: ../../.grok/roles/explore-prompt.md",
		]);
	});

	it("round trip: the builder runs read-write in a worktree, and the role prompt is found from .pi/roles", () => {
		expectCheckClean(p);
		expect(explain(p, "builder").config).toMatchObject({ tools: ["read", "edit", "write", "grep", "find", "ls"], capabilityMode: "read-write", isolation: "worktree" });
		const explore = explain(p, "explore");
		expect(explore.config).toMatchObject({ capabilityMode: "read-only", reasoningEffort: "low" });
		expect(JSON.stringify(explore.config)).toContain("Search wide first");
	});
});
