/**
 * Fuzzing the resolver (issue 9 "Must show"): random files (as in the loader fuzz) and random
 * requests and parents, resolved and explained for every loaded type and a few random names —
 * never a throw, a refusal or a config for every type, every file diagnostic positioned, every
 * request diagnostic without a position, and an explain table bounded by its input.
 */
import fc from "fast-check";
import { describe, it } from "vitest";
import { THINKING_LEVELS } from "../../src/core/values.ts";
import { loadAll } from "../../src/files/load.ts";
import { explain, renderExplain } from "../../src/resolve/explain.ts";
import { spawnReader } from "../../src/resolve/spawn-reader.ts";
import type { SpawnRequest } from "../../src/resolve/types.ts";
import { catalog, parent } from "../resolve/support/build.ts";
import { assertBounded, FUZZ_TIMEOUT, params, PROTO_NAMES, sandbox, TYPE_NAMES, tree, value } from "./support.ts";

const named = <T>(known: readonly T[]) => fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...known) }, { weight: 1, arbitrary: value });

const request: fc.Arbitrary<SpawnRequest> = fc.record(
	{
		prompt: named(["Do the task.", ""]),
		description: named(["short"]),
		model: named(["test/model-a", "model-b", "inherit", "nope/none", "test/parent"]),
		thinking: named([...THINKING_LEVELS, "inherit", "none", "HIGH"]),
		capability: named(["read-only", "read_write", "execute", "all", "readonly"]),
		persona: named(["none", "terse", ...TYPE_NAMES]),
		isolation: named(["none", "worktree", "work-tree"]),
		cwd: named([".", "src", "/", "../..", "/nonexistent", ""]),
		max_turns: named([1, 2, 10, 0, -1, 2.5]),
		run_in_background: named([true, false]),
		inherit_context: named([true, false]),
	},
	{ requiredKeys: [] },
);

const parentFacts = fc.record({
	model: fc.constantFrom("test/parent", null, "test/model-a"),
	thinking: fc.constantFrom(...THINKING_LEVELS.filter((l) => l !== "max")),
	activeTools: fc.subarray(["read", "bash", "edit", "write", "grep", "find", "ls", "mcp_x", ...PROTO_NAMES]),
});

describe("fuzz: resolve and explain", () => {
	it(
		"never throw, refuse or configure every type, and position file diagnostics",
		() => {
			const box = sandbox();
			fc.assert(
				fc.property(tree, request, parentFacts, fc.array(fc.oneof(fc.constantFrom(...TYPE_NAMES), fc.string({ maxLength: 8 })), { maxLength: 2 }), (t, req, facts, extra) => {
					const written = box.write(t);
					const loaded = loadAll({ cwd: box.project, agentDir: box.agent, homeDir: box.home, projectTrusted: false });
					const types = [...[...loaded.definitions.values()].map((d) => d.name), ...extra];
					for (const type of types) {
						const facts2 = parent({ ...facts, cwd: box.project, repoRoot: box.project, toolUniverse: [...new Set([...facts.activeTools, "read", "bash"])] });
						const out = explain({ request: { ...req, subagent_type: type }, type, loaded, parent: facts2, models: catalog(), reader: spawnReader, toolKinds: loaded.settings.toolKinds });
						// No config only for a type that does not exist, or whose files (or settings) have an error (issue 19, ADR 0100).
						if (out.config === null && out.refused?.code !== "unknown-type" && out.refused?.code !== "file-invalid") throw new Error(`no config and no unknown-type or file-invalid refusal for ${type}`);
						if (out.refused && !(typeof out.refused.code === "string" && out.refused.message.length > 0)) throw new Error(`refusal without text: ${JSON.stringify(out.refused)}`);
						for (const d of out.diagnostics) {
							const fileOk = d.file === null ? d.line === null : Number.isInteger(d.line) && (d.line as number) >= 1;
							if (!fileOk || d.message.length === 0) throw new Error(`diagnostic without a consistent position: ${JSON.stringify(d)}`);
						}
						const rendered = renderExplain(out);
						assertBounded({ out, rendered }, written, out.diagnostics.length);
					}
				}),
				params(25),
			);
		},
		FUZZ_TIMEOUT,
	);
});
