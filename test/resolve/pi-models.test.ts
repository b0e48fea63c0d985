/**
 * The model catalog over pi's real ModelRuntime (src/runtime/pi/model-catalog.ts): names resolve
 * like pi's `--model`, only models with credentials are usable, synthesized ids are unknown, the
 * thinking clamp is pi's, and pi's settings give the CLI's parent defaults. Offline.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { ModelCatalog } from "../../src/resolve/types.ts";
import { closestModels, createModelCatalog } from "../../src/runtime/pi/model-catalog.ts";
import { PI_DEFAULT_THINKING_LEVEL, piDefaults } from "../../src/runtime/pi/pi-defaults.ts";

function agentDir(settings?: unknown): string {
	const dir = mkdtempSync(join(process.env.TMPDIR as string, "agent-"));
	mkdirSync(dir, { recursive: true });
	writeFileSync(
		join(dir, "models.json"),
		JSON.stringify({
			providers: {
				test: {
					baseUrl: "http://127.0.0.1:9/v1",
					api: "openai-completions",
					apiKey: "none",
					models: [
						{ id: "model-a", reasoning: true },
						{ id: "model-b", reasoning: true },
						{ id: "plain", reasoning: false },
					],
				},
				locked: {
					baseUrl: "http://127.0.0.1:9/v1",
					api: "openai-completions",
					models: [{ id: "secret-model", reasoning: true }],
				},
			},
		}),
	);
	if (settings !== undefined) writeFileSync(join(dir, "settings.json"), JSON.stringify(settings));
	return dir;
}

describe("model catalog", () => {
	let models: ModelCatalog;
	beforeAll(async () => {
		models = await createModelCatalog({ agentDir: agentDir() });
	});

	it("resolves provider/id and a bare id the way pi's --model does", () => {
		expect(models.lookup("test/model-a")).toEqual({ ok: true, id: "test/model-a" });
		expect(models.lookup("model-b")).toEqual({ ok: true, id: "test/model-b" });
	});

	it("counts an id pi would synthesize for a known provider as unknown", () => {
		const found = models.lookup("test/model-zzz");
		expect(found).toMatchObject({ ok: false, reason: "unknown" });
		if (!found.ok) expect(found.closest[0]).toMatch(/^test\//);
	});

	it("refuses a known model without credentials as no-credentials", () => {
		expect(models.lookup("locked/secret-model")).toMatchObject({ ok: false, reason: "no-credentials" });
	});

	it("lists the closest available models for an unknown name", () => {
		const found = models.lookup("model-aa");
		expect(found.ok).toBe(false);
		if (!found.ok) expect(found.closest[0]).toBe("test/model-a");
	});

	it("clamps thinking like pi: a non-reasoning model runs with off", () => {
		expect(models.clampThinking("test/plain", "high")).toBe("off");
		expect(models.clampThinking("test/model-a", "high")).toBe("high");
		expect(models.clampThinking("test/model-a", "max")).not.toBe("max");
	});
});

describe("closestModels", () => {
	it("prefers names containing the query, then edit distance", () => {
		expect(closestModels("sonnet", ["a/opus-4", "b/claude-sonnet-4", "c/sonet"], 2)).toEqual(["b/claude-sonnet-4", "c/sonet"]);
	});
});

describe("pi defaults", () => {
	it("reads defaultProvider/defaultModel and defaultThinkingLevel from <agentDir>/settings.json", () => {
		const dir = agentDir({ defaultProvider: "test", defaultModel: "model-b", defaultThinkingLevel: "low" });
		expect(piDefaults({ agentDir: dir, cwd: dir, projectTrusted: false })).toEqual({ model: "test/model-b", thinking: "low" });
	});

	it("falls back to no model and pi's built-in thinking level", () => {
		const dir = agentDir();
		expect(piDefaults({ agentDir: dir, cwd: dir, projectTrusted: false })).toEqual({ model: null, thinking: PI_DEFAULT_THINKING_LEVEL });
	});
});
