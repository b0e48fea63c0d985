/**
 * Issue 9 item 10: pi computes model availability asynchronously, and cadre must not refuse a spawn
 * because pi's check has not landed yet. The parent's own model is always usable for its children;
 * a model whose provider pi's snapshot does not list yet is checked with pi before a refusal. Real
 * pi sessions with the faux provider; pi's availability pass is held by the test (no timing).
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fauxAssistantMessage, fauxProvider, fauxToolCall } from "@earendil-works/pi-ai";
import { ModelRuntime } from "@earendil-works/pi-coding-agent";
import { afterEach, describe, expect, it } from "vitest";
import { createModelCatalog, liveCatalog, withAvailableModels } from "../../src/runtime/pi/model-catalog.ts";
import { createParent, type Parent, fullResult, toolResults } from "./harness.ts";

let parent: Parent | null = null;
afterEach(() => {
	parent?.availability.release();
	parent?.dispose();
	parent = null;
});

function agentDir(): string {
	const dir = mkdtempSync(join(process.env.TMPDIR as string, "agent-"));
	const locked = { baseUrl: "http://127.0.0.1:9/v1", api: "openai-completions", models: [{ id: "secret-model" }, { id: "other-secret" }] };
	writeFileSync(join(dir, "models.json"), JSON.stringify({ providers: { locked } }));
	return dir;
}

describe("the catalog", () => {
	it("counts the parent's model as usable, however it is named, and no other model of its provider", async () => {
		const models = await createModelCatalog({ agentDir: agentDir(), parentModel: "locked/secret-model" });
		expect(models.lookup("locked/secret-model")).toEqual({ ok: true, id: "locked/secret-model" });
		expect(models.lookup("secret-model")).toEqual({ ok: true, id: "locked/secret-model" });
		expect(models.lookup("locked/other-secret")).toMatchObject({ ok: false, reason: "no-credentials" });
	});

	it("checks with pi a provider registered after the availability pass, before counting it without credentials", async () => {
		const runtime = await ModelRuntime.create({ modelsPath: join(agentDir(), "models.json"), allowModelNetwork: false });
		const late = fauxProvider({ provider: "late", models: [{ id: "late-model" }] });
		runtime.registerNativeProvider(late.provider);
		// pi's own re-check runs in the background; the snapshot does not list the provider yet.
		expect(liveCatalog(runtime, null).lookup("late/late-model")).toMatchObject({ ok: false, reason: "no-credentials" });
		let calls = 0;
		const found = await withAvailableModels(runtime, null, (models) => {
			calls++;
			return models.lookup("late/late-model");
		});
		expect(found).toEqual({ ok: true, id: "late/late-model" });
		expect(calls).toBe(2);
		// A model that really has no credentials is checked once, then refused from the check.
		const refused = await withAvailableModels(runtime, null, (models) => models.lookup("locked/secret-model"));
		expect(refused).toMatchObject({ ok: false, reason: "no-credentials" });
		let again = 0;
		await withAvailableModels(runtime, null, (models) => {
			again++;
			return models.lookup("locked/secret-model");
		});
		expect(again).toBe(1);
	});
});

/** A settled parent whose first turn spawns an explore child on `model`. */
function parentSpawning(model: string): Promise<Parent> {
	return createParent({
		availability: "settled",
		script: (turn) =>
			turn.step === 0
				? fauxAssistantMessage([fauxToolCall("subagent", { prompt: "hi", description: model, subagent_type: "explore", model })], { stopReason: "toolUse" })
				: fauxAssistantMessage("done"),
	});
}

describe("spawns while pi's availability check is pending", () => {
	it("a spawn issued at session start, before the pass lands, runs on the parent's model", async () => {
		parent = await createParent({
			availability: "pending",
			script: (turn) => {
				if (turn.agent === "explore") return fauxAssistantMessage("child ran");
				return turn.step === 0
					? fauxAssistantMessage([fauxToolCall("subagent", { prompt: "look", description: "look", subagent_type: "explore" })], { stopReason: "toolUse" })
					: fauxAssistantMessage("done");
			},
		});
		expect(parent.runtime.getAvailableSnapshot()).toEqual([]);
		await parent.session.prompt("go");
		const [result] = toolResults(parent.session, "subagent");
		expect(result?.text).not.toContain("Spawn refused");
		expect(fullResult(parent, result)).toMatchObject({ status: "completed", model: "faux/parent-model", text: "child ran" });
		expect(parent.runtime.getAvailableSnapshot()).toEqual([]);
	});

	it("a provider registered after the pass is usable at once", async () => {
		parent = await parentSpawning("late/late-model");
		const late = fauxProvider({ provider: "late", models: [{ id: "late-model" }] });
		late.setResponses([fauxAssistantMessage("late child ran")]);
		parent.availability.hold();
		parent.runtime.registerNativeProvider(late.provider);
		await parent.session.prompt("go");
		const [result] = toolResults(parent.session, "subagent");
		expect(result?.text).not.toContain("Spawn refused");
		expect(fullResult(parent, result)).toMatchObject({ status: "completed", model: "late/late-model", text: "late child ran" });
	});

	it("a model that really has no credentials is still refused after pi's check", async () => {
		parent = await parentSpawning("nokey/some-model");
		parent.runtime.registerProvider("nokey", {
			baseUrl: "http://127.0.0.1:9/v1",
			api: "openai-completions",
			models: [{ id: "some-model", name: "some", reasoning: false, input: ["text"], cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, contextWindow: 1000, maxTokens: 100 }],
		});
		await parent.session.prompt("go");
		const [result] = toolResults(parent.session, "subagent");
		expect(result?.isError).toBe(true);
		expect(result?.text).toContain("Spawn refused (model-unresolvable)");
		expect(result?.text).toContain("nokey/some-model has no credentials");
	});
});
