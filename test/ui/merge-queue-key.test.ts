/**
 * The merge queue from `/subagents` (issue 23): `m` shows what the queue would merge and asks;
 * `y` runs it and shows its report; any other key leaves everything as it was.
 */
import { KeybindingsManager, TUI_KEYBINDINGS } from "@earendil-works/pi-tui";
import { describe, expect, it } from "vitest";
import { type RunsViewHost, SubagentsScreen } from "../../src/hosts/pi/ui/runs-view.ts";
import { createLiveFeed } from "../../src/hosts/pi/ui/live-feed.ts";
import { plainStyle } from "../../src/hosts/pi/ui/text.ts";
import { record } from "./support.ts";

const keys = new KeybindingsManager(TUI_KEYBINDINGS);
const ESC = "\x1b";

function screen(queue: (dryRun: boolean) => Promise<{ text: string; branches: number }>) {
	const calls: boolean[] = [];
	const run = record({ state: "completed", endedAt: 5000 });
	const host: RunsViewHost = {
		runs: () => [run],
		get: () => run,
		messages: () => [],
		steer: async () => {},
		stop: async () => run,
		worktreeReport: async () => "",
		mergeQueue: (dryRun) => {
			calls.push(dryRun);
			return queue(dryRun);
		},
	};
	const tui = { requestRender: () => {}, terminal: { rows: 30 } } as never;
	const view = new SubagentsScreen({ host, tui, theme: plainStyle, keybindings: keys, feed: createLiveFeed(), done: () => {} });
	const text = () => view.render(100).join("\n");
	return { view, calls, text };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("m in /subagents", () => {
	it("lists the queue, asks, and on y merges and shows the report", async () => {
		const { view, calls, text } = screen(async (dryRun) =>
			dryRun ? { text: "1. cadre/a  finished …  verify: none\nWould merge 1 branch(es) onto main, in this order: cadre/a.", branches: 1 } : { text: "applied  cadre/a  fast-forward to 0123456789", branches: 1 },
		);
		expect(text()).toContain("m merge");
		view.handleInput("m");
		await settle();
		expect(calls).toEqual([true]);
		expect(text()).toContain("Would merge 1 branch(es) onto main");
		expect(text()).toContain("y merge");
		view.handleInput("y");
		await settle();
		expect(calls).toEqual([true, false]);
		expect(text()).toContain("applied  cadre/a  fast-forward to 0123456789");
		view.handleInput(ESC);
		expect(text()).toContain("sub-agent runs of this session");
	});

	it("any other key cancels: nothing is merged", async () => {
		const { view, calls, text } = screen(async () => ({ text: "Would merge 2 branch(es) onto main.", branches: 2 }));
		view.handleInput("m");
		await settle();
		view.handleInput("n");
		await settle();
		expect(calls).toEqual([true]);
		expect(text()).toContain("Nothing was merged.");
	});

	it("with nothing to merge, it says so and does not ask", async () => {
		const { view, calls, text } = screen(async () => ({ text: "No finished cadre/<id> branch to merge.", branches: 0 }));
		view.handleInput("m");
		await settle();
		expect(text()).toContain("No finished cadre/<id> branch to merge.");
		expect(text()).not.toContain("y merge");
		view.handleInput("y");
		await settle();
		expect(calls).toEqual([true]);
	});
});
