/**
 * One parent-model rule (issue 19, ADR 0103): `explain` and `prompt` take the parent's model pi
 * would pick for a new session — its settings default, else its automatic default among the
 * available models — as `cadre run` and the extension do. `prompt` needs no credential, and
 * `explain` without one shows the resolution with the model marked unverified instead of refusing.
 */
import { describe, expect, it } from "vitest";
import { cadreInTree, cliTree, testModels } from "../support/cli.ts";

interface ExplainJson {
	refused: { code: string; message: string } | null;
	config: { model: string | null };
	trace: { model: { value: unknown; layer: string; unverified?: boolean } };
	diagnostics: { code: string; severity: string; message: string }[];
}

const explain = async (root: string, args: string[] = []) => {
	const run = await cadreInTree(root, ["explain", "explore", ...args, "--json"]);
	return { ...run, json: JSON.parse(run.out) as ExplainJson };
};

describe("the parent's model when settings.json names none", () => {
	it("explain takes pi's automatic default among the available models", async () => {
		const root = cliTree("parent-auto-", testModels(["model-a"]));
		const { code, json } = await explain(root);
		expect(json.refused).toBeNull();
		expect(code).toBe(0);
		expect(json.trace.model).toMatchObject({ value: "test/model-a", layer: "parent" });
	});

	it("prompt prints the prompt", async () => {
		const root = cliTree("parent-auto-prompt-", testModels(["model-a"]));
		const run = await cadreInTree(root, ["prompt", "explore"]);
		expect(run.err).toBe("");
		expect(run.code).toBe(0);
		expect(run.out).toContain('<active_agent name="explore"/>');
	});

	it("the settings default wins over the automatic one", async () => {
		const root = cliTree("parent-settings-", testModels(["model-a", "model-b"]), { "agent/settings.json": JSON.stringify({ defaultProvider: "test", defaultModel: "model-b" }) });
		const { json } = await explain(root);
		expect(json.trace.model).toMatchObject({ value: "test/model-b", layer: "parent" });
	});
});

describe("without any credential", () => {
	const noCredential = () => cliTree("parent-nocred-", { providers: {} }, { "agent/settings.json": JSON.stringify({ defaultProvider: "anthropic", defaultModel: "claude-sonnet-4-5" }) });

	it("explain shows the resolution with the model marked unverified instead of refusing", async () => {
		const { code, json } = await explain(noCredential(), ["--request", '{"model": "anthropic/claude-haiku-4-5"}']);
		expect(json.refused).toBeNull();
		expect(code).toBe(0);
		expect(json.trace.model).toMatchObject({ value: "anthropic/claude-haiku-4-5", layer: "request", unverified: true });
		expect(json.diagnostics).toContainEqual(expect.objectContaining({ code: "model-unverified", severity: "warning" }));
		const human = await cadreInTree(noCredential(), ["explain", "explore"]);
		expect(human.code).toBe(0);
		expect(human.out).toMatch(/anthropic\/claude-sonnet-4-5 \(unverified/);
	});

	it("prompt needs no credential, nor any model: the prompt does not contain it", async () => {
		const run = await cadreInTree(cliTree("parent-nomodel-", { providers: {} }), ["prompt", "explore"]);
		expect(run.code, run.err).toBe(0);
		expect(run.out).toContain('<active_agent name="explore"/>');
	});
});
