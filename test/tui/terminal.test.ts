/**
 * cadre in pi's real terminal UI (issue 11 "Must show"): the real `pi` binary in a pseudo-terminal
 * with cadre and a scripted faux model whose children wait until the test releases them. The
 * widget lists running children with their descriptions and the queued count and clears after
 * they finish; the `/subagents` view opens, Enter shows a child's live messages, the steer key
 * delivers a message the child's next request contains, the stop key stops it; a foreground
 * child's tool row shows the compact line, then the summary. Every step waits for a screen state.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { piWorld } from "../support/pi-cli.ts";
import { KEYS, type PiTerminal, startPi } from "./support/pi-terminal.ts";

let pi: PiTerminal | null = null;

afterEach(async () => {
	await pi?.close();
	pi = null;
});

const has = (lines: string[], ...texts: string[]) => texts.every((text) => lines.some((line) => line.includes(text)));

describe("cadre in pi's TUI", () => {
	it("the widget shows the running children with descriptions and the queued count, and clears after they finish", async () => {
		pi = await startPi({ fixture: "tui-model.ts", settings: { maxConcurrent: 2 } });
		await pi.submit("spawn alpha beta gamma");
		await pi.waitFor("two running rows and one queued", (t) => has(t.aboveEditor(), "alpha task", "beta task", "↳ bash", "1 queued"));
		await pi.waitFor("the footer count", (t) => has(t.footer(), "cadre: 2 running · 1 queued"));
		expect(pi.aboveEditor().join("\n")).not.toContain("gamma task");

		pi.release("alpha");
		await pi.waitFor("gamma running once alpha is done", (t) => has(t.aboveEditor(), "gamma task", "✓ general-purpose · alpha task") && !has(t.aboveEditor(), "queued"));
		pi.release("beta");
		pi.release("gamma");
		await pi.waitFor("the widget and the footer status cleared", (t) => !has(t.aboveEditor(), "task") && !has(t.footer(), "cadre:"));
		expect(pi.screen()).toContain("parent: noted");
	}, 60_000);

	it("/subagents opens the view; Enter shows a child's live messages; steer reaches its next request; stop stops the other", async () => {
		pi = await startPi({ fixture: "tui-model.ts" });
		await pi.submit("spawn delta epsilon");
		await pi.waitFor("both running", (t) => has(t.footer(), "cadre: 2 running"));
		await pi.submit("/subagents");
		await pi.waitFor("the view", (t) => has(t.lines(), "sub-agent runs of this session", "delta task", "epsilon task", "RUNNING"));

		await pi.pressUntil(KEYS.enter, "delta's live conversation", (t) => has(t.lines(), "› task delta", '→ bash {"command":"while [ ! -e release-delta ]', "s steer"));
		pi.write("s");
		await pi.waitFor("the composer", (t) => has(t.lines(), "steer ›"));
		pi.write("focus on tests");
		await pi.waitFor("the typed message", (t) => has(t.lines(), "steer › focus on tests"));
		pi.write(KEYS.enter);
		await pi.waitFor("the steer confirmation", (t) => has(t.lines(), "Sent to"));
		pi.release("delta");
		await pi.waitFor("the child's answer in the viewer", (t) => has(t.lines(), "delta done STEERED: focus on tests", "← bash"));
		const delta = pi.childRequests().filter((request) => request.name === "delta");
		expect(delta.at(-1)?.texts).toContain("focus on tests");

		pi.write(KEYS.escape);
		await pi.waitFor("back in the list", (t) => has(t.lines(), "sub-agent runs of this session"));
		pi.write(KEYS.down);
		await pi.waitFor("epsilon selected", (t) => t.lines().some((line) => line.startsWith("›") && line.includes("epsilon task")));
		pi.write("x");
		await pi.waitFor("the stop confirmation", (t) => has(t.lines(), "? y stops it"));
		pi.write("y");
		await pi.waitFor("epsilon stopped", (t) => t.lines().some((line) => line.includes("epsilon task") && line.includes("stopped")));
		expect(pi.childRequests().filter((request) => request.name === "epsilon")).toHaveLength(1);
		pi.write(KEYS.escape);
		await pi.waitFor("the editor back", (t) => !has(t.lines(), "sub-agent runs of this session") && t.footer().length > 0);
	}, 60_000);

	it("a foreground child's tool row shows the compact line and the activity, then the summary", async () => {
		pi = await startPi({ fixture: "tui-model.ts" });
		await pi.submit("foreground zeta");
		await pi.waitFor("the compact running line", (t) => t.lines().some((line) => /subagent \S general-purpose · zeta task · general-purpose-\w+ · 1 turn · 1 tool · \S+ tok · \d/.test(line)));
		await pi.waitFor("the activity", (t) => has(t.lines(), "↳ bash while [ ! -e release-zeta ]"));
		pi.release("zeta");
		await pi.waitFor("the summary", (t) => t.lines().some((line) => /✓ completed · faux\/scripted · .*2 turns · 1 tool · \S+ tok · \d/.test(line)) && has(t.lines(), "parent: foreground finished"));
		expect(pi.screen()).not.toMatch(/subagent \S general-purpose · zeta task · general-purpose-/);
		expect(pi.screen()).not.toContain("Requested vs used");
	}, 60_000);

	it("after pi -c, the view lists the earlier process's runs and opens a finished one's conversation from its transcript", async () => {
		pi = await startPi({ fixture: "tui-model.ts" });
		await pi.submit("spawn omega");
		await pi.waitFor("omega running", (t) => has(t.aboveEditor(), "omega task"));
		pi.release("omega");
		await pi.waitFor("omega notified", (t) => has(t.lines(), "parent: noted"));
		const world = pi.world;
		pi.write(KEYS.ctrlD);
		await pi.exited();
		pi = await startPi({ fixture: "tui-model.ts", world, flags: ["-c"] });
		await pi.submit("/subagents");
		await pi.waitFor("the earlier run listed", (t) => t.lines().some((line) => line.includes("omega task") && line.includes("completed")));
		await pi.pressUntil(KEYS.enter, "its conversation from the transcript", (t) => has(t.lines(), "› task omega", "→ bash", "omega done"));
	}, 60_000);
});

describe("a tree in pi's TUI (issue 21)", () => {
	it("the widget and /subagents show a lead's children indented under it; x on the lead stops its whole subtree", async () => {
		const world = piWorld("tui-tree-");
		mkdirSync(join(world.agentDir, "agents"), { recursive: true });
		writeFileSync(join(world.agentDir, "agents", "lead.md"), "---\ndescription: Lead\ntools: [read, bash, subagent]\nsubagents: [general-purpose]\n---\nLead.\n");
		pi = await startPi({ fixture: "tui-model.ts", world, settings: { maxConcurrent: 2 } });
		await pi.submit("lead kappa lambda mu");
		await pi.waitFor("the lead with two children running and one queued", (t) => has(t.aboveEditor(), "the lead", "kappa task", "lambda task", "1 queued"));
		const widget = pi.aboveEditor();
		const row = (text: string) => widget.find((line) => line.includes(text)) ?? "";
		const indentOf = (line: string) => line.length - line.trimStart().length;
		expect(indentOf(row("kappa task"))).toBe(indentOf(row("the lead")) + 2);
		expect(row("the lead")).toMatch(/3 below: 2 running, 1 queued/);

		await pi.submit("/subagents");
		await pi.waitFor("the view with the tree", (t) => has(t.lines(), "sub-agent runs of this session", "the lead", "kappa task", "mu task"));
		const lines = pi.lines();
		const leadRow = lines.findIndex((line) => line.includes("the lead"));
		expect(lines.findIndex((line) => line.includes("kappa task"))).toBeGreaterThan(leadRow);
		await pi.pressUntil(KEYS.up, "the lead selected", (t) => t.lines().some((line) => line.startsWith("›") && line.includes("the lead")));
		pi.write("x");
		await pi.waitFor("the stop confirmation", (t) => has(t.lines(), "? y stops it"));
		pi.write("y");
		await pi.waitFor("the lead and all three children stopped", (t) =>
			["the lead", "kappa task", "lambda task", "mu task"].every((text) => t.lines().some((line) => line.includes(text) && line.includes("stopped"))),
		);
		pi.write(KEYS.escape);
	}, 60_000);
});
