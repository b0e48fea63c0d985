/**
 * `/subagents list`, the text form kept for scripts and RPC mode (issue 11): padded columns, and
 * the elapsed time is running time with the time spent queued shown apart.
 */
import { describe, expect, it } from "vitest";
import { subagentsCommand } from "../../src/hosts/pi/commands.ts";
import type { RunRegistry } from "../../src/runtime/runs.ts";
import { record } from "./support.ts";

describe("/subagents list", () => {
	it("pads every column and shows running time and queued time apart", async () => {
		const runs = [
			record({ startedAt: 36_000, endedAt: 100_000 }),
			record({ id: "general-purpose-long-id", type: "general-purpose", description: "a longer description", state: "completed", startedAt: 30_050, endedAt: 31_050 }),
		];
		const registry = { list: () => runs } as unknown as RunRegistry;
		const text = await subagentsCommand("list", { registry, cwd: "/", explain: () => ({}) as never });
		const lines = text.split("\n");
		expect(lines[0]).toMatch(/^explore-abc123 +running +explore +"review the math module" +1m4s +queued 6\.0s +/);
		expect(lines[1]).toMatch(/^general-purpose-long-id +completed +general-purpose +"a longer description" +1\.0s +10\.0k in/);
		const column = (line: string, text: string) => line.indexOf(text);
		expect(column(lines[0] ?? "", '"review')).toBe(column(lines[1] ?? "", '"a longer'));
	});
});
