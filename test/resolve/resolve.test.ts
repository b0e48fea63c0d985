/**
 * The resolver's rules (spec 02), one group per rule, against hand-built loaded entries.
 */
import { describe, expect, it } from "vitest";
import type { Diagnostic } from "../../src/core/diagnostics.ts";
import { resolve } from "../../src/resolve/resolve.ts";
import type { EffectiveConfig, StoredRun } from "../../src/resolve/types.ts";
import { catalog, entry, fileRef, input, loaded, parent, reader } from "./support/build.ts";

const scout = (keys: Record<string, unknown> = {}, extra: { body?: string | null; invalid?: Record<string, unknown> } = {}) =>
	entry("definition", { name: "scout", keys: { description: "Scout", ...keys }, body: extra.body ?? "Scout the code.", invalid: extra.invalid });

describe("worked example of spec 02", () => {
	const result = resolve(
		input({
			request: { thinking: "high", persona: "reviewer" },
			loaded: loaded({
				roles: [entry("role", { name: "general-purpose", keys: { model: "test/model-a", capability: "read-only", isolation: "worktree" } })],
				personas: [entry("persona", { name: "reviewer", keys: { model: "test/model-b", thinking: "low", isolation: "none" }, body: "Review carefully." })],
			}),
		}),
	);

	it("takes model A from the role, high from the request, read-only from the role, worktree from the role", () => {
		expect(result.refused).toBeNull();
		expect(result.config).toMatchObject({ model: "test/model-a", reasoningEffort: "high", capabilityMode: "read-only", isolation: "worktree" });
		expect(result.trace.model?.layer).toBe("role");
		expect(result.trace.reasoningEffort?.layer).toBe("request");
		expect(result.trace.capabilityMode?.layer).toBe("role");
		expect(result.trace.isolation?.layer).toBe("role");
	});

	it("reports the persona's values as overridden candidates", () => {
		expect(result.trace.model?.candidates.find((c) => c.layer === "persona")).toEqual({
			layer: "persona",
			value: "test/model-b",
			source: ".pi/personas/reviewer.md:2",
			outcome: "overridden",
		});
		expect(result.trace.isolation?.candidates.find((c) => c.layer === "persona")?.outcome).toBe("overridden");
		expect(result.trace.model?.candidates.find((c) => c.layer === "request")).toEqual({ layer: "request", value: null, source: null, outcome: "not-named" });
	});

	it("never gives the capability a persona layer", () => {
		expect(result.trace.capabilityMode?.candidates.map((c) => c.layer)).toEqual(["request", "definition"]);
	});
});

describe("layer order", () => {
	it("lets the request beat the definition and the definition fill the rest", () => {
		const result = resolve(
			input({
				type: "scout",
				request: { model: "test/model-b", isolation: "none" },
				loaded: loaded({ definitions: [scout({ model: "test/model-a", thinking: "low", isolation: "worktree" })] }),
			}),
		);
		expect(result.config).toMatchObject({ model: "test/model-b", reasoningEffort: "low", isolation: "none", standingInstructions: "Scout the code." });
		expect(result.trace.isolation?.layer).toBe("request");
		expect(result.trace.reasoningEffort?.layer).toBe("definition");
		expect(result.trace.isolation?.candidates.find((c) => c.layer === "definition-floor")?.outcome).toBe("overridden");
	});

	it("puts the operator pin above the definition and below the persona", () => {
		const pins = { models: { scout: { value: "test/model-c", source: "settings:.pi/subagents.json:1" } } };
		const base = { definitions: [scout({ model: "test/model-a" })], settings: pins };
		const pinned = resolve(input({ type: "scout", loaded: loaded(base) }));
		expect(pinned.config?.model).toBe("test/model-c");
		expect(pinned.trace.model).toMatchObject({ layer: "pin", source: "settings:.pi/subagents.json:1" });
		const withPersona = resolve(
			input({
				type: "scout",
				request: { persona: "fast" },
				loaded: loaded({ ...base, personas: [entry("persona", { name: "fast", keys: { model: "test/model-b" }, body: "Be quick." })] }),
			}),
		);
		expect(withPersona.config?.model).toBe("test/model-b");
		expect(withPersona.trace.model?.layer).toBe("persona");
	});

	it("falls back to the parent's model and thinking", () => {
		const result = resolve(input({ type: "scout", loaded: loaded({ definitions: [scout()] }) }));
		expect(result.config).toMatchObject({ model: "test/parent", reasoningEffort: "medium" });
		expect(result.trace.model).toMatchObject({ layer: "parent", source: "parent" });
		expect(result.trace.reasoningEffort).toMatchObject({ layer: "parent", source: "parent", applied: "medium" });
	});

	it("lets an explicit request isolation none beat a role's worktree", () => {
		const result = resolve(
			input({
				type: "scout",
				request: { isolation: "none" },
				loaded: loaded({ definitions: [scout()], roles: [entry("role", { name: "scout", keys: { isolation: "worktree" } })] }),
			}),
		);
		expect(result.config?.isolation).toBe("none");
		expect(result.trace.isolation?.layer).toBe("request");
	});

	it("takes a persona's isolation over a definition's none, and defaults to none", () => {
		const defNone = loaded({
			definitions: [scout({ isolation: "none" })],
			personas: [entry("persona", { name: "careful", keys: { isolation: "worktree" }, body: "Careful." })],
		});
		const result = resolve(input({ type: "scout", request: { persona: "careful" }, loaded: defNone }));
		expect(result.config?.isolation).toBe("worktree");
		expect(result.trace.isolation?.layer).toBe("persona");
		const plain = resolve(input({ type: "scout", loaded: loaded({ definitions: [scout()] }) }));
		expect(plain.trace.isolation).toMatchObject({ value: "none", layer: "default", source: "default" });
	});

	it("orders maxTurns, runInBackground and inheritContext request > definition > default", () => {
		const defaults = { defaultMaxTurns: { value: 30, source: "settings:/agent/subagents.json:2" }, defaultBackground: { value: true, source: "settings:/agent/subagents.json:3" } };
		const fromDefaults = resolve(input({ type: "scout", loaded: loaded({ definitions: [scout()], settings: defaults }) }));
		expect(fromDefaults.config).toMatchObject({ maxTurns: 30, runInBackground: true, inheritContext: false });
		expect(fromDefaults.trace.maxTurns).toMatchObject({ layer: "default", source: "settings:/agent/subagents.json:2" });
		const fromDefinition = resolve(
			input({ type: "scout", loaded: loaded({ definitions: [scout({ max_turns: 8, run_in_background: false, inherit_context: true })], settings: defaults }) }),
		);
		expect(fromDefinition.config).toMatchObject({ maxTurns: 8, runInBackground: false, inheritContext: true });
		expect(fromDefinition.trace.runInBackground?.layer).toBe("definition");
		const fromRequest = resolve(
			input({
				type: "scout",
				request: { max_turns: 3, run_in_background: true, inherit_context: false },
				loaded: loaded({ definitions: [scout({ max_turns: 8, inherit_context: true })], settings: defaults }),
			}),
		);
		expect(fromRequest.config).toMatchObject({ maxTurns: 3, runInBackground: true, inheritContext: false });
		expect(fromRequest.trace.inheritContext?.layer).toBe("request");
		const unlimited = resolve(input({ type: "scout", loaded: loaded({ definitions: [scout()] }) }));
		expect(unlimited.config?.maxTurns).toBeNull();
	});

	it("resolves copyUncommitted request > settings worktree.copyUncommitted > false, and says when it has no worktree", () => {
		const isolated = scout({ isolation: "worktree" });
		const none = resolve(input({ type: "scout", loaded: loaded({ definitions: [isolated] }) }));
		expect(none.trace.copyUncommitted).toMatchObject({ value: false, layer: "default", source: "default" });
		const worktree = { baseDir: null, allowSharedFallback: false, copyUncommitted: { value: true, source: "settings:/agent/subagents.json:4" } };
		const fromSettings = resolve(input({ type: "scout", loaded: loaded({ definitions: [isolated], settings: { worktree } }) }));
		expect(fromSettings.trace.copyUncommitted).toMatchObject({ value: true, layer: "default", source: "settings:/agent/subagents.json:4" });
		const fromRequest = resolve(input({ type: "scout", request: { copy_uncommitted: false }, loaded: loaded({ definitions: [isolated], settings: { worktree } }) }));
		expect(fromRequest.config?.copyUncommitted).toBe(false);
		expect(fromRequest.trace.copyUncommitted?.candidates).toEqual([expect.objectContaining({ layer: "default", value: true, outcome: "overridden" })]);
		const bad = resolve(input({ type: "scout", request: { copy_uncommitted: "yes" }, loaded: loaded({ definitions: [isolated] }) }));
		expect(bad.refused).toMatchObject({ code: "bad-request" });
		const shared = resolve(input({ type: "scout", request: { copy_uncommitted: true }, loaded: loaded({ definitions: [scout()] }) }));
		expect(shared.config?.copyUncommitted).toBe(true);
		expect(shared.diagnostics.map((d) => d.code)).toContain("request-ignored");
	});

	it("reports a field nothing names as default with no candidates", () => {
		const result = resolve(input({ type: "scout", loaded: loaded({ definitions: [scout()] }) }));
		expect(result.config?.capabilityMode).toBeNull();
		expect(result.trace.capabilityMode).toEqual({ value: null, layer: "default", source: "default", candidates: [] });
		expect(result.trace.roleName).toEqual({ value: null, layer: "default", source: "default", candidates: [] });
	});

	it("names inherit as not named", () => {
		const result = resolve(input({ type: "scout", request: { model: "inherit", thinking: "inherit" }, loaded: loaded({ definitions: [scout({ model: "test/model-a" })] }) }));
		expect(result.refused).toBeNull();
		expect(result.trace.model?.layer).toBe("definition");
		expect(result.trace.reasoningEffort?.layer).toBe("parent");
	});

	it("matches the type case-insensitively and reports the canonical name", () => {
		const result = resolve(input({ type: "EXPLORE" }));
		expect(result.type).toBe("explore");
		expect(result.config?.definition).toEqual({ name: "explore", source: "bundled" });
		expect(result.config?.capabilityMode).toBe("read-only");
	});
});

describe("invalid values", () => {
	it("lets an invalid value below the request fall through without a second diagnostic", () => {
		const loadDiagnostic: Diagnostic = { severity: "error", file: ".pi/roles/scout.md", line: 2, column: 11, code: "bad-value", message: "bad thinking" };
		const result = resolve(
			input({
				type: "scout",
				loaded: loaded({
					definitions: [scout({ thinking: "medium" })],
					roles: [entry("role", { name: "scout", invalid: { thinking: "extreme" } })],
					diagnostics: [loadDiagnostic],
				}),
			}),
		);
		expect(result.refused).toBeNull();
		expect(result.config?.reasoningEffort).toBe("medium");
		expect(result.trace.reasoningEffort?.layer).toBe("definition");
		expect(result.trace.reasoningEffort?.candidates.find((c) => c.layer === "role")).toEqual({
			layer: "role",
			value: "extreme",
			source: ".pi/roles/scout.md:2",
			outcome: "invalid",
		});
		expect(result.diagnostics).toEqual([loadDiagnostic]);
	});

	it("refuses an invalid request value with bad-request listing the valid values", () => {
		const result = resolve(input({ request: { thinking: "extreme" } }));
		expect(result.refused?.code).toBe("bad-request");
		expect(result.refused?.message).toContain("off, minimal, low, medium, high, xhigh, max");
		expect(result.trace.reasoningEffort?.candidates[0]).toEqual({ layer: "request", value: "extreme", source: "request", outcome: "invalid" });
		expect(result.config?.reasoningEffort).toBe("medium");
		const diagnostic = result.diagnostics.find((d) => d.code === "bad-value");
		expect(diagnostic).toMatchObject({ severity: "error", file: null, line: null, column: null });
	});

	it.each([
		[{ capability: "everything" }, "read-only, read-write, execute, all"],
		[{ isolation: "sandbox" }, "none, worktree"],
		[{ max_turns: 1 }, "integer ≥ 2"],
		[{ run_in_background: "yes" }, "true, false"],
		[{ persona: 3 }, "persona name"],
	])("refuses request %j", (request, valid) => {
		const result = resolve(input({ request }));
		expect(result.refused?.code).toBe("bad-request");
		expect(result.refused?.message).toContain(valid);
	});

	it("accepts aliases and spellings of enumerated values", () => {
		const result = resolve(input({ request: { capability: "READ_ONLY", isolation: "work-tree", thinking: "none" } }));
		expect(result.refused).toBeNull();
		expect(result.config).toMatchObject({ capabilityMode: "read-only", isolation: "worktree", reasoningEffort: "off" });
	});
});

describe("persona", () => {
	const reviewer = entry("persona", { name: "Reviewer", keys: { description: "Careful" }, body: "Review carefully." });
	const critic = entry("definition", { name: "critic", keys: { persona: "reviewer" }, body: "Critique." });

	it("uses the definition's persona when the request names none", () => {
		const result = resolve(input({ type: "critic", loaded: loaded({ definitions: [critic], personas: [reviewer] }) }));
		expect(result.config).toMatchObject({ persona: "Reviewer", personaInstructions: "Review carefully.", personaError: null });
		expect(result.trace.persona?.layer).toBe("definition");
	});

	it('drops the definition\'s persona when the request says "none"', () => {
		const result = resolve(input({ type: "critic", request: { persona: "none" }, loaded: loaded({ definitions: [critic], personas: [reviewer] }) }));
		expect(result.refused).toBeNull();
		expect(result.config).toMatchObject({ persona: null, personaInstructions: null });
		expect(result.trace.persona?.layer).toBe("request");
		expect(result.trace.persona?.candidates).toEqual([{ layer: "definition", value: "reviewer", source: ".pi/agents/critic.md:2", outcome: "overridden" }]);
	});

	it('lets a definition say persona "none": no persona, not a persona named none (a higher scope drops a lower one\'s)', () => {
		const plain = entry("definition", { name: "critic", keys: { persona: "None" }, body: "Critique." });
		const result = resolve(input({ type: "critic", loaded: loaded({ definitions: [plain], personas: [reviewer] }) }));
		expect(result.refused).toBeNull();
		expect(result.config).toMatchObject({ persona: null, personaInstructions: null, personaError: null });
		expect(result.trace.persona).toMatchObject({ value: null, layer: "definition", source: ".pi/agents/critic.md:2" });
	});

	it("fails closed when the persona is not found, and still computes the rest", () => {
		const result = resolve(input({ request: { persona: "ghost", model: "test/model-a" } }));
		expect(result.refused?.code).toBe("persona-error");
		expect(result.config?.personaError).toContain("ghost");
		expect(result.config?.model).toBe("test/model-a");
		expect(result.trace.personaError?.layer).toBe("persona");
	});

	it("fails closed when a definition's persona is missing", () => {
		const result = resolve(input({ type: "critic", loaded: loaded({ definitions: [critic] }) }));
		expect(result.refused?.code).toBe("persona-error");
		expect(result.config?.personaError).toContain("definition");
	});

	it("fails closed when the persona is empty after trimming", () => {
		const empty = entry("persona", { name: "empty", keys: { model: "test/model-b" } });
		const result = resolve(input({ request: { persona: "empty" }, loaded: loaded({ personas: [empty] }) }));
		expect(result.refused?.code).toBe("persona-error");
		expect(result.config?.personaError).toContain("empty");
		expect(result.config?.model).toBe("test/model-b");
	});

	it("joins the body and instructions_file, body first", () => {
		const writer = entry("persona", { name: "writer", keys: { instructions_file: fileRef("extra.md") }, body: "Write plainly." });
		const result = resolve(input({ request: { persona: "writer" }, loaded: loaded({ personas: [writer] }), reader: reader({ "extra.md": "Use short sentences." }) }));
		expect(result.config?.personaInstructions).toBe("Write plainly.\n\nUse short sentences.");
	});

	it.each([
		["missing.md", "missing.md"],
		["../../etc/passwd", "leaves"],
	])("fails closed when instructions_file %s cannot be read", (written, expected) => {
		const strict = entry("persona", { name: "strict", keys: { instructions_file: fileRef(written) }, body: "Be strict." });
		const result = resolve(input({ request: { persona: "strict" }, loaded: loaded({ personas: [strict] }) }));
		expect(result.refused?.code).toBe("persona-error");
		expect(result.config?.personaError).toContain(expected);
		expect(result.config?.personaError).toContain("strict");
		expect(result.config?.personaInstructions).toBeNull();
	});
});

describe("role", () => {
	it("keeps the role's settings when its prompt_file is unreadable (soft)", () => {
		const role = entry("role", { name: "scout", keys: { model: "test/model-b", prompt_file: fileRef("prompts/scout.md", ".pi/roles/scout.md") }, body: "Role body." });
		const result = resolve(input({ type: "scout", loaded: loaded({ definitions: [scout()], roles: [role] }) }));
		expect(result.refused).toBeNull();
		expect(result.config).toMatchObject({ model: "test/model-b", rolePrompt: "Role body.", roleName: "scout" });
		expect(result.config?.rolePromptWarning).toContain("prompts/scout.md");
		expect(result.trace.rolePromptWarning?.layer).toBe("role");
	});

	it("joins the body and prompt_file", () => {
		const role = entry("role", { name: "scout", keys: { prompt_file: fileRef("p.md") }, body: "Body." });
		const result = resolve(input({ type: "scout", loaded: loaded({ definitions: [scout()], roles: [role] }), reader: reader({ "p.md": "  File.\n" }) }));
		expect(result.config?.rolePrompt).toBe("Body.\n\nFile.");
		expect(result.config?.rolePromptWarning).toBeNull();
	});
});

describe("refusals", () => {
	it("refuses an unknown type with config null, an empty trace and the enabled types", () => {
		const result = resolve(
			input({
				type: "nonexistent",
				loaded: loaded({ definitions: [entry("definition", { name: "hidden", keys: { enabled: false } })] }),
			}),
		);
		expect(result).toMatchObject({ type: "nonexistent", config: null, trace: {} });
		expect(result.refused?.code).toBe("unknown-type");
		expect(result.refused?.message).toContain("explore, general-purpose, plan");
		expect(result.refused?.message).not.toContain("hidden");
	});

	it("refuses a type disabled by its definition or the settings toggle, and the toggle re-enables", () => {
		const hidden = entry("definition", { name: "hidden", keys: { enabled: false }, body: "x" });
		expect(resolve(input({ type: "hidden", loaded: loaded({ definitions: [hidden] }) })).refused?.code).toBe("disabled-type");
		const toggledOn = loaded({ definitions: [hidden], settings: { toggle: { hidden: { value: true, source: "settings:.pi/subagents.json:1" } } } });
		expect(resolve(input({ type: "hidden", loaded: toggledOn })).refused).toBeNull();
		const toggledOff = loaded({ settings: { toggle: { plan: { value: false, source: "settings:.pi/subagents.json:1" } } } });
		const result = resolve(input({ type: "plan", loaded: toggledOff }));
		expect(result.refused?.code).toBe("disabled-type");
		expect(result.config?.capabilityMode).toBe("read-only");
	});
});

describe("models", () => {
	it("refuses an unresolvable request model and lists the closest available", () => {
		const result = resolve(input({ request: { model: "test/nope" } }));
		expect(result.refused?.code).toBe("model-unresolvable");
		expect(result.refused?.message).toContain("test/model-a");
		expect(result.trace.model?.candidates[0]).toMatchObject({ layer: "request", value: "test/nope", outcome: "unresolvable" });
		// Every diagnostic says what to do, the request's own included.
		expect(result.diagnostics.find((d) => d.code === "model-unresolvable")?.hint).toContain("available model");
	});

	it("falls through an unresolvable lower model with a positioned diagnostic naming the reason", () => {
		const result = resolve(
			input({ type: "scout", loaded: loaded({ definitions: [scout({ model: "other/locked" })] }), models: catalog({ noCredentials: ["other/locked"] }) }),
		);
		expect(result.refused).toBeNull();
		expect(result.config?.model).toBe("test/parent");
		expect(result.trace.model?.candidates.find((c) => c.layer === "definition")).toMatchObject({ value: "other/locked", outcome: "unresolvable" });
		const diagnostic = result.diagnostics.find((d) => d.code === "model-unresolvable");
		expect(diagnostic).toMatchObject({ severity: "warning", file: ".pi/agents/scout.md", line: 3 });
		expect(diagnostic?.message).toContain("no-credentials");
	});

	it("refuses when no layer names a model", () => {
		const result = resolve(input({ parent: parent({ model: null }) }));
		expect(result.refused?.code).toBe("model-unresolvable");
		expect(result.config?.model).toBeNull();
	});

	it("reports the applied level after the clamp with a thinking-clamped warning", () => {
		const result = resolve(input({ request: { thinking: "max" }, models: catalog({ levels: { "test/parent": ["off", "low", "medium", "high"] } }) }));
		expect(result.config?.reasoningEffort).toBe("max");
		expect(result.trace.reasoningEffort?.applied).toBe("high");
		expect(result.diagnostics.find((d) => d.code === "thinking-clamped")).toMatchObject({ severity: "warning", file: null });
	});
});

describe("cwd", () => {
	it("resolves a request cwd against the parent's cwd and shows it relative to the project", () => {
		const result = resolve(input({ request: { cwd: "src" } }));
		expect(result.config?.cwd).toBe("src");
		expect(result.trace.cwd).toMatchObject({ layer: "request", source: "request" });
		expect(resolve(input()).trace.cwd).toMatchObject({ value: ".", layer: "parent" });
	});

	it("refuses a cwd that is not an existing directory", () => {
		const result = resolve(input({ request: { cwd: "nowhere" } }));
		expect(result.refused?.code).toBe("bad-request");
		expect(result.refused?.message).toContain("/project/nowhere");
		expect(result.trace.cwd?.candidates[0]).toMatchObject({ layer: "request", value: "nowhere", outcome: "invalid" });
	});

	it("refuses cwd together with request isolation worktree", () => {
		expect(resolve(input({ request: { cwd: ".", isolation: "worktree" } })).refused?.code).toBe("bad-request");
	});

	it("allows cwd with worktree isolation from a lower layer inside the repository, refuses it outside", () => {
		const role = entry("role", { name: "general-purpose", keys: { isolation: "worktree" } });
		const inside = resolve(input({ request: { cwd: "src" }, loaded: loaded({ roles: [role] }) }));
		expect(inside.refused).toBeNull();
		expect(inside.config).toMatchObject({ cwd: "src", isolation: "worktree" });
		const outside = resolve(input({ request: { cwd: "/elsewhere" }, loaded: loaded({ roles: [role] }), reader: reader({}, ["/elsewhere"]) }));
		expect(outside.refused?.code).toBe("bad-request");
		expect(outside.refused?.message).toContain("outside the git repository");
	});

	it("leaves a parent outside any repository to the worktree feasibility check, not a bad-request", () => {
		const role = entry("role", { name: "general-purpose", keys: { isolation: "worktree" } });
		const result = resolve(input({ request: { cwd: "src" }, loaded: loaded({ roles: [role] }), parent: parent({ repoRoot: null }) }));
		expect(result.refused).toBeNull();
		expect(result.config).toMatchObject({ cwd: "src", isolation: "worktree" });
	});
});

describe("diagnostics order", () => {
	it("puts load diagnostics first, then the resolution's own in field order", () => {
		const load: Diagnostic = { severity: "warning", file: ".pi/agents/scout.md", line: 1, column: 1, code: "unknown-key", message: "x" };
		const result = resolve(
			input({
				type: "scout",
				request: { thinking: "max", cwd: "nowhere" },
				loaded: loaded({ definitions: [scout({ tools: ["read", "nope"] })], diagnostics: [load] }),
				models: catalog({ levels: { "test/parent": ["off", "high"] } }),
			}),
		);
		expect(result.diagnostics.map((d) => d.code)).toEqual(["unknown-key", "thinking-clamped", "tool-unavailable", "bad-value"]);
	});
});

describe("resume", () => {
	const storedConfig: EffectiveConfig = {
		model: "test/model-a",
		reasoningEffort: "low",
		capabilityMode: "read-only",
		persona: "reviewer",
		personaInstructions: "Review.",
		rolePrompt: null,
		rolePromptWarning: null,
		roleName: null,
		personaError: null,
		inputs: [],
		outputs: [],
		outputSchema: null,
		isolation: "none",
		copyUncommitted: false,
		tools: ["read"],
		maxTurns: null,
		runInBackground: false,
		inheritContext: false,
		cwd: ".",
		standingInstructions: "Scout.",
		definition: { name: "scout", source: ".pi/agents/scout.md" },
		depth: 1,
		delegation: { allowed: false, subagents: "*", reason: "not delegating", maxDepth: 2 },
		budget: { tokens: null, cost: null, time: null },
	};
	const run = (state: StoredRun["state"] = "completed"): StoredRun => ({ id: "r1", state, config: storedConfig });

	it("reuses the stored config, takes type and persona from the source, and lists ignored values", () => {
		const result = resolve(input({ type: null, request: { resume: "r1", model: "test/model-b", run_in_background: true, prompt: "go on" }, resumeFrom: run() }));
		expect(result.refused).toBeNull();
		expect(result.type).toBe("scout");
		expect(result.config).toMatchObject({ model: "test/model-a", persona: "reviewer", runInBackground: true });
		expect(result.ignored).toEqual([{ key: "model", requested: "test/model-b", reason: expect.stringContaining("r1") }]);
		expect(result.diagnostics.map((d) => d.code)).toEqual(["request-ignored"]);
		expect(result.trace.model).toMatchObject({ layer: "resume", source: "resume:r1" });
	});

	it.each([
		["an unknown id", { resume: "zz" }, "completed"],
		["a running run", { resume: "r1" }, "running"],
		["a queued run", { resume: "r1" }, "queued"],
		["a persona change", { resume: "r1", persona: "other" }, "completed"],
	] as const)("refuses %s", (_label, request, state) => {
		expect(resolve(input({ type: null, request, resumeFrom: run(state) })).refused?.code).toBe("resume-refused");
	});

	it("refuses a type change", () => {
		expect(resolve(input({ type: "explore", request: { resume: "r1" }, resumeFrom: run() })).refused?.code).toBe("resume-refused");
		expect(resolve(input({ type: "SCOUT", request: { resume: "r1" }, resumeFrom: run() })).refused).toBeNull();
	});
});
