/** One `git worktree add` at a time per repository (src/isolation/repo-queue.ts). */
import { describe, expect, it } from "vitest";
import { oneAtATime } from "../../src/isolation/repo-queue.ts";

describe("oneAtATime", () => {
	it("runs the calls for one repository one after another, in order, and goes on after a failure; other repositories do not wait", async () => {
		const log: string[] = [];
		const step = (name: string, ms: number, fail = false) => async () => {
			log.push(`${name} start`);
			await new Promise((resolve) => setTimeout(resolve, ms));
			log.push(`${name} end`);
			if (fail) throw new Error(name);
			return name;
		};
		const a1 = oneAtATime("/repo-a", step("a1", 30));
		const a2 = oneAtATime("/repo-a", step("a2", 5, true));
		const a3 = oneAtATime("/repo-a", step("a3", 5));
		const b1 = oneAtATime("/repo-b", step("b1", 5));
		expect(await a1).toBe("a1");
		await expect(a2).rejects.toThrow("a2");
		expect(await a3).toBe("a3");
		expect(await b1).toBe("b1");
		const a = log.filter((line) => line.startsWith("a"));
		expect(a).toEqual(["a1 start", "a1 end", "a2 start", "a2 end", "a3 start", "a3 end"]);
		// b1 ran beside a1, not after it.
		expect(log.indexOf("b1 end")).toBeLessThan(log.indexOf("a1 end"));
	});
});
