/**
 * The run registry on its own, with a scripted child handle and isolation hooks: races a real pi
 * session cannot pin down (a stop that arrives while a finished run's isolation is being wrapped up).
 */
import { describe, expect, it } from "vitest";
import type { ChildHandle } from "../../src/runtime/pi-sdk.ts";
import { createRunRegistry, type LifecycleEvent, type SpawnPlan } from "../../src/runtime/runs.ts";

function child(text: string): ChildHandle {
	return {
		transcript: "/t/child.jsonl",
		subscribe: () => () => {},
		run: async () => {},
		steer: async () => {},
		abort: async () => {},
		lastText: () => text,
		usage: () => ({ input: 1, output: 1, cacheRead: 0, cacheWrite: 0, cost: 0 }),
		dispose: () => {},
	};
}

function plan(handle: ChildHandle): SpawnPlan {
	return {
		type: "explore",
		description: "look",
		prompt: "p",
		config: { maxTurns: null, tools: ["read"], model: "faux/m", capabilityMode: null, persona: null } as unknown as SpawnPlan["config"],
		trace: {},
		ignored: [],
		diagnostics: [],
		cwd: "/tmp",
		resumeOf: null,
		createChild: async () => handle,
	};
}

describe("run registry", () => {
	it("a stop that arrives while a finished run's isolation is wrapping up wins: the run is recorded stopped", async () => {
		let releaseFinish: () => void = () => {};
		let finishing: () => void = () => {};
		const finishStarted = new Promise<void>((resolve) => (finishing = resolve));
		const events: { name: LifecycleEvent; status: unknown }[] = [];
		const registry = createRunRegistry({
			maxConcurrent: 1,
			emit: (name, payload) => events.push({ name, status: payload.status }),
			isolation: {
				prepare: async () => ({ cwd: null, report: null }),
				finish: async () => {
					finishing();
					await new Promise<void>((resolve) => (releaseFinish = resolve));
					return null;
				},
			},
		});
		const { run, done } = await registry.spawn(plan(child("final answer")), { background: true });
		await finishStarted;
		const stopped = registry.stop(run.id);
		releaseFinish();
		const [byStop, final] = await Promise.all([stopped, done]);
		expect(byStop?.state).toBe("stopped");
		expect(final.state).toBe("stopped");
		expect(events.filter((e) => e.name === "cadre:completed" || e.name === "cadre:failed")).toEqual([{ name: "cadre:failed", status: "stopped" }]);
	});

	it("a spawn still preparing its isolation when the parent session ends is stopped, and no child is created", async () => {
		let releasePrepare: () => void = () => {};
		let preparing: () => void = () => {};
		const prepareStarted = new Promise<void>((resolve) => (preparing = resolve));
		let created = 0;
		const registry = createRunRegistry({
			maxConcurrent: 1,
			emit: () => {},
			isolation: {
				prepare: async () => {
					preparing();
					await new Promise<void>((resolve) => (releasePrepare = resolve));
					return { cwd: null, report: null };
				},
				finish: async () => null,
			},
		});
		const handle = child("never");
		const spawning = registry.spawn({ ...plan(handle), createChild: async () => (created++, handle) }, { background: true });
		await prepareStarted;
		await registry.stopAll();
		releasePrepare();
		const { run, done } = await spawning;
		expect((await done).state).toBe("stopped");
		expect(run.state).toBe("stopped");
		expect(created).toBe(0);
	});
});
