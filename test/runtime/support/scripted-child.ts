/**
 * A child handle that does nothing and answers `text`, and a plan that starts it: the run registry
 * on its own, without pi (test/runtime/runs.test.ts, bench/registry.ts).
 */
import type { ChildHandle } from "../../../src/runtime/pi/child-session.ts";
import type { SpawnPlan } from "../../../src/runtime/runs.ts";

/** A child that runs at once and answers `text`. */
export function scriptedChild(text: string): ChildHandle {
	return {
		transcript: "/t/child.jsonl",
		subscribe: () => () => {},
		run: async () => {},
		steer: async () => {},
		abort: async () => {},
		lastText: () => text,
		structured: () => null,
		usage: () => ({ input: 1, output: 1, cacheRead: 0, cacheWrite: 0, cost: 0 }),
		contextUsage: () => null,
		messages: () => [],
		dispose: () => {},
		diagnostics: () => [],
		unread: async () => [],
	};
}

/** An explore run in /tmp whose child is `handle`. */
export function scriptedPlan(handle: ChildHandle): SpawnPlan {
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
