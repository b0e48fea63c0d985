/**
 * Issue 16 / ADR 0078: a definition's `isolation: worktree` is a floor that only the request can
 * lower. The rule is a layer of the isolation ORDER (`definition-floor`, right after the request),
 * so the trace names the definition as the winner and lists the role or persona `none` it beat.
 */
import { describe, expect, it } from "vitest";
import { explain, renderExplain } from "../../src/resolve/explain.ts";
import { ORDER } from "../../src/resolve/order.ts";
import { resolve } from "../../src/resolve/resolve.ts";
import type { RunRecord } from "../../src/runtime/runs.ts";
import { requestedVsUsed } from "../../src/runtime/result.ts";
import { entry, input, loaded, parent, reader } from "./support/build.ts";

/** `isolation` is the definition's second key, so its source is `.pi/agents/builder.md:3`. */
const builder = (isolation?: unknown, invalid?: Record<string, unknown>) =>
	entry("definition", { name: "builder", keys: { description: "Builder", ...(isolation === undefined ? {} : { isolation }) }, body: "Build it.", invalid });
const calm = entry("persona", { name: "calm", keys: { isolation: "none" }, body: "Stay calm." });
const roleNone = entry("role", { name: "builder", keys: { isolation: "none" } });
const DEFINITION_KEY = ".pi/agents/builder.md:3";

const resolveBuilder = (request: Record<string, unknown>, spec: Parameters<typeof loaded>[0], extra: Partial<Parameters<typeof input>[0]> = {}) =>
	resolve(input({ type: "builder", request, loaded: loaded(spec), ...extra }));

describe("the isolation order", () => {
	it("puts the definition's worktree floor right after the request", () => {
		expect(ORDER.isolation).toEqual(["request", "definition-floor", "role", "persona", "definition", "default"]);
	});
});

describe("a definition's worktree is a floor below the request", () => {
	it("beats a persona's none, naming the definition and listing the persona it beat", () => {
		const result = resolveBuilder({ persona: "calm" }, { definitions: [builder("worktree")], personas: [calm] });
		expect(result.refused).toBeNull();
		expect(result.config?.isolation).toBe("worktree");
		expect(result.trace.isolation).toEqual({
			value: "worktree",
			layer: "definition-floor",
			source: DEFINITION_KEY,
			candidates: [
				{ layer: "request", value: null, source: null, outcome: "not-named" },
				{ layer: "role", value: null, source: null, outcome: "not-named" },
				{ layer: "persona", value: "none", source: ".pi/personas/calm.md:2", outcome: "overridden" },
				{ layer: "definition", value: null, source: null, outcome: "not-named" },
				{ layer: "default", value: "none", source: "default", outcome: "overridden" },
			],
		});
	});

	it("beats a role's none", () => {
		const result = resolveBuilder({}, { definitions: [builder("worktree")], roles: [roleNone] });
		expect(result.config?.isolation).toBe("worktree");
		expect(result.trace.isolation).toMatchObject({ layer: "definition-floor", source: DEFINITION_KEY });
		expect(result.trace.isolation?.candidates.find((c) => c.layer === "role")).toEqual({
			layer: "role",
			value: "none",
			source: ".pi/roles/builder.md:2",
			outcome: "overridden",
		});
	});

	it("is lowered by an explicit request none, which lists the floor as overridden", () => {
		const result = resolveBuilder({ isolation: "none" }, { definitions: [builder("worktree")], roles: [entry("role", { name: "builder", keys: { isolation: "worktree" } })] });
		expect(result.config?.isolation).toBe("none");
		expect(result.trace.isolation?.layer).toBe("request");
		expect(result.trace.isolation?.candidates.slice(0, 2)).toEqual([
			{ layer: "definition-floor", value: "worktree", source: DEFINITION_KEY, outcome: "overridden" },
			{ layer: "role", value: "worktree", source: ".pi/roles/builder.md:2", outcome: "overridden" },
		]);
	});

	it("only raises: a definition's none sits at its plain place, below the persona", () => {
		const careful = entry("persona", { name: "careful", keys: { isolation: "worktree" }, body: "Careful." });
		const result = resolveBuilder({ persona: "careful" }, { definitions: [builder("none")], personas: [careful] });
		expect(result.config?.isolation).toBe("worktree");
		expect(result.trace.isolation?.layer).toBe("persona");
		const byLayer = Object.fromEntries((result.trace.isolation?.candidates ?? []).map((c) => [c.layer, c]));
		expect(byLayer["definition-floor"]).toEqual({ layer: "definition-floor", value: null, source: null, outcome: "not-named" });
		expect(byLayer.definition).toEqual({ layer: "definition", value: "none", source: DEFINITION_KEY, outcome: "overridden" });
	});

	it("keeps role over persona when the definition says none", () => {
		const roleWorktree = entry("role", { name: "builder", keys: { isolation: "worktree" } });
		const result = resolveBuilder({ persona: "calm" }, { definitions: [builder("none")], roles: [roleWorktree], personas: [calm] });
		expect(result.config?.isolation).toBe("worktree");
		expect(result.trace.isolation?.layer).toBe("role");
	});

	it("reports an invalid definition value once, at the plain definition place", () => {
		const result = resolveBuilder({ persona: "calm" }, { definitions: [builder(undefined, { isolation: "sandbox" })], personas: [calm] });
		expect(result.config?.isolation).toBe("none");
		expect(result.trace.isolation?.layer).toBe("persona");
		const invalid = result.trace.isolation?.candidates.filter((c) => c.outcome === "invalid");
		expect(invalid).toEqual([{ layer: "definition", value: "sandbox", source: ".pi/agents/builder.md:3", outcome: "invalid" }]);
	});

	it("leaves requested-vs-used alone: the request did not name isolation", () => {
		const result = resolveBuilder({ persona: "calm" }, { definitions: [builder("worktree")], personas: [calm] });
		const rows = requestedVsUsed({ trace: result.trace, ignored: [] } as unknown as RunRecord);
		expect(rows.find((row) => row.field === "isolation")).toBeUndefined();
	});
});

describe("the floor downstream", () => {
	it("maps a request cwd into the worktree like any lower layer's worktree, and names the floor when it cannot", () => {
		const spec = { definitions: [builder("worktree")], roles: [roleNone] };
		const inside = resolveBuilder({ cwd: "src" }, spec);
		expect(inside.refused).toBeNull();
		expect(inside.config).toMatchObject({ cwd: "src", isolation: "worktree" });
		const outside = resolveBuilder({ cwd: "/elsewhere" }, spec, { reader: reader({}, ["/elsewhere"]) });
		expect(outside.refused?.code).toBe("bad-request");
		expect(outside.refused?.message).toContain('isolation "worktree" from definition-floor');
	});

	it("shows in explain: from the definition's key, beating the persona's none; feasibility names the floor", () => {
		const output = explain(input({ type: "builder", request: { persona: "calm" }, loaded: loaded({ definitions: [builder("worktree")], personas: [calm] }), parent: parent({ repoRoot: null }) }));
		const row = renderExplain(output)
			.split("\n")
			.find((line) => line.startsWith("isolation "));
		expect(row).toMatch(/^isolation\s+worktree\s+definition-floor \.pi\/agents\/builder\.md:3\s+persona none \.pi\/personas\/calm\.md:2; default none$/);
		const warning = output.diagnostics.find((d) => d.code === "worktree-unavailable");
		expect(warning?.message).toContain('isolation "worktree" (from definition-floor)');
	});
});
