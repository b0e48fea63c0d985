/**
 * A parent's kept resolutions (src/hosts/spawn/resolution-cache.ts, issue 28): reused only for an
 * input equal in every part the resolver reads, never across a file read, a changed catalog answer
 * or new loaded files — and the resolver itself never reads the request's prompt or description,
 * which the cache leaves out of its key.
 */
import { describe, expect, it } from "vitest";
import { createResolutionCache } from "../../src/hosts/spawn/resolution-cache.ts";
import { resolve } from "../../src/resolve/resolve.ts";
import type { SpawnRequest } from "../../src/resolve/types.ts";
import { catalog, entry, fileRef, input, loaded, reader } from "../resolve/support/build.ts";

const scout = (keys: Record<string, unknown> = {}) => entry("definition", { name: "scout", keys: { description: "Scout", model: "test/model-a", ...keys }, body: "Scout the code." });

/** A request that records every key the resolver reads of it. */
function watched(request: SpawnRequest): { request: SpawnRequest; read: Set<string> } {
	const read = new Set<string>();
	const proxy = new Proxy(request, {
		get(target, key, receiver) {
			if (typeof key === "string") read.add(key);
			return Reflect.get(target, key, receiver);
		},
	});
	return { request: proxy, read };
}

describe("the resolver and the request's texts", () => {
	it("never reads prompt or description, whatever else the request names", () => {
		const requests: SpawnRequest[] = [
			{ prompt: "p", description: "d" },
			{ prompt: "p", description: "d", model: "test/model-b", thinking: "high", isolation: "worktree", run_in_background: true },
			{ prompt: "p", description: "d", persona: "reviewer", inputs: { diff: "x" }, max_turns: 3, cwd: "src" },
			{ prompt: "p", description: "d", model: "nope", capability: "bogus" },
		];
		const files = loaded({ definitions: [scout()], personas: [entry("persona", { name: "reviewer", keys: { inputs: [{ name: "diff", io_type: "text" }] }, body: "Review." })] });
		for (const request of requests) {
			for (const type of ["scout", "general-purpose", "missing"]) {
				const { request: proxy, read } = watched(request);
				resolve(input({ request: proxy, type, loaded: files }));
				expect([...read].filter((key) => key === "prompt" || key === "description")).toEqual([]);
			}
		}
	});
});

describe("the resolution cache", () => {
	const files = loaded({ definitions: [scout()] });

	it("answers a fan-out of one type with one resolution: requests that differ only in their texts", () => {
		const cache = createResolutionCache();
		const first = cache.resolve(input({ type: "scout", loaded: files, request: { prompt: "task 1", description: "one" } }));
		const second = cache.resolve(input({ type: "scout", loaded: files, request: { prompt: "task 2", description: "two" } }));
		expect(second).toBe(first);
		expect(second.config?.model).toBe("test/model-a");
	});

	it("resolves again for another request value, type or parent", () => {
		const cache = createResolutionCache();
		const base = cache.resolve(input({ type: "scout", loaded: files, request: { prompt: "x" } }));
		const thinking = cache.resolve(input({ type: "scout", loaded: files, request: { prompt: "x", thinking: "high" } }));
		expect(thinking).not.toBe(base);
		expect(thinking.config?.reasoningEffort).toBe("high");
		expect(cache.resolve(input({ type: "general-purpose", loaded: files, request: { prompt: "x" } }))).not.toBe(base);
	});

	it("resolves again over new loaded files (an edited definition)", () => {
		const cache = createResolutionCache();
		const before = cache.resolve(input({ type: "scout", loaded: files, request: { prompt: "x" } }));
		const edited = cache.resolve(input({ type: "scout", loaded: loaded({ definitions: [scout({ model: "test/model-b" })] }), request: { prompt: "x" } }));
		expect(before.config?.model).toBe("test/model-a");
		expect(edited.config?.model).toBe("test/model-b");
	});

	it("resolves again when the catalog answers a lookup differently (credentials came or went)", () => {
		const cache = createResolutionCache();
		const ok = cache.resolve(input({ type: "scout", loaded: files, request: { prompt: "x" } }));
		const gone = cache.resolve(input({ type: "scout", loaded: files, request: { prompt: "x" }, models: catalog({ available: ["test/model-b"], noCredentials: ["test/model-a"] }) }));
		expect(ok.refused).toBeNull();
		expect(gone.refused?.code).not.toBeUndefined();
	});

	it("keeps no resolution that read a file: an edited prompt_file shows in the next spawn", () => {
		const cache = createResolutionCache();
		const shared = loaded({ definitions: [scout()], roles: [entry("role", { name: "scout", keys: { prompt_file: fileRef("prompts/scout.md", ".pi/roles/scout.md") } })] });
		const at = (text: string) => input({ type: "scout", loaded: shared, reader: reader({ "prompts/scout.md": text }), request: { prompt: "x" } });
		expect(cache.resolve(at("first text")).config?.rolePrompt).toBe("first text");
		expect(cache.resolve(at("second text")).config?.rolePrompt).toBe("second text");
	});

	it("keeps no resume: its stored run is not in the key", () => {
		const cache = createResolutionCache();
		const a = cache.resolve(input({ type: "scout", loaded: files, request: { prompt: "x", resume: "scout-1" }, resumeFrom: null }));
		const b = cache.resolve(input({ type: "scout", loaded: files, request: { prompt: "x", resume: "scout-1" }, resumeFrom: null }));
		expect(b).not.toBe(a);
	});
});
