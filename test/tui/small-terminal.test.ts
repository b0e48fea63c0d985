/**
 * Issue 24 in pi's real terminal (node-pty + headless xterm) at 160×14, 80×24 and 60×20: every
 * view scrolls and keeps the selection, the prompt and the keys on screen; the explain page is the
 * run's own and scrolls from its top; the viewer holds its place while output arrives and says how
 * far down it is; legends shorten before `esc back` is cut; a queued run's viewer shows its task
 * and what steering does; widget rows keep their order, carry their ids and spin; the list opens on
 * a running run, Home/End move, the spawn row follows its run and the summary counts tools.
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
/** The children that have made a request (pi's footer status does not show on every height, the model log does). */
const started = (t: PiTerminal, ...names: string[]) => names.every((name) => t.childRequests().some((request) => request.name === name));
/** The children that have answered after their release (their second request). */
const answered = (t: PiTerminal, ...names: string[]) => names.every((name) => t.childRequests().filter((request) => request.name === name).length >= 2);
const SIZES = [
	[160, 14],
	[80, 24],
	[60, 20],
] as const;
const HOME = "\x1b[H";
const END = "\x1b[F";
const PAGE_UP = "\x1b[5~";
const SPINNER = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/;

describe.each(SIZES)("at %i×%i", (cols, rows) => {
	it("item 1: the list scrolls; the selected row, the stop prompt and the keys stay on screen", async () => {
		pi = await startPi({ fixture: "tui-model.ts", cols, rows, settings: { maxConcurrent: 8 } });
		await pi.submit("spawn a1 a2 a3 a4 a5 a6 a7 a8");
		await pi.waitFor("eight running", (t) => started(t, "a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8"));
		for (const name of ["a1", "a2", "a3", "a4", "a5", "a6"]) pi.release(name);
		await pi.waitFor("six answered", (t) => answered(t, "a1", "a2", "a3", "a4", "a5", "a6"));
		await pi.submit("/subagents");
		await pi.waitFor("the view", (t) => has(t.lines(), "sub-agent runs of this session"));
		for (let i = 0; i < 10; i++) pi.write(KEYS.down);
		await pi.waitFor("the last run selected", (t) => t.lines().some((line) => line.startsWith("›") && line.includes("a8")));
		pi.write("x");
		await pi.waitFor("the prompt, the selected row and the keys on screen", (t) =>
			has(t.lines(), "y stops it") && t.lines().some((line) => line.startsWith("›") && line.includes("a8")) && has(t.lines(), "esc"),
		);
		pi.write("y");
		await pi.waitFor("a8 stopped", (t) => t.lines().some((line) => line.includes("a8") && line.includes("stopped")));
		pi.write(HOME);
		await pi.waitFor("home selects the first run", (t) => t.lines().some((line) => line.startsWith("›") && line.includes("a1")));
		pi.write(END);
		await pi.waitFor("end selects the last run", (t) => t.lines().some((line) => line.startsWith("›") && line.includes("a8")));
	}, 90_000);

	it("items 2 and 5: e shows the run's own resolution from its top and scrolls; from the viewer too", async () => {
		const world = piWorld("tui-");
		mkdirSync(join(world.agentDir, "personas"), { recursive: true });
		writeFileSync(join(world.agentDir, "personas", "ghost.md"), "---\ndescription: A quiet reviewer\n---\nSay little.\n");
		pi = await startPi({ fixture: "tui-model.ts", cols, rows, world });
		await pi.submit("spawn-ghost b1");
		await pi.waitFor("b1 running", (t) => started(t, "b1"));
		await pi.submit("/subagents");
		await pi.waitFor("the view", (t) => has(t.lines(), "sub-agent runs of this session"));
		pi.write("e");
		await pi.waitFor("the run's resolution from its top", (t) => has(t.lines(), "how this run was set up", "model:", "esc back"));
		const page = pi.screen();
		expect(page).not.toContain("rolePromptWarning");
		pi.write(END);
		await pi.waitFor("the end of the page: definition", (t) => has(t.lines(), "definition:", "100%", "esc back"));
		pi.write(PAGE_UP);
		await pi.waitFor("page up moves back", (t) => !has(t.lines(), "100%"));
		pi.write(HOME);
		await pi.waitFor("home: the top again", (t) => has(t.lines(), "how this run was set up"));
		// The run's own values: its persona and that it ran in the background, where they came from.
		const all: string[] = [];
		for (let i = 0; i < 40 && !has(all, "background: yes"); i++) {
			all.push(...pi.lines());
			pi.write(KEYS.down);
			await new Promise((resolve) => setTimeout(resolve, 60));
		}
		all.push(...pi.lines());
		expect(all.join("\n")).toMatch(/persona: ghost/);
		expect(all.join("\n")).toContain("background: yes");
		expect(all.join("\n")).not.toMatch(/personaError|runInBackground/);
		pi.write(KEYS.escape);
		await pi.waitFor("the list", (t) => has(t.lines(), "sub-agent runs of this session"));
		await pi.pressUntil(KEYS.enter, "the viewer", (t) => has(t.lines(), "› task b1"));
		pi.write("e");
		await pi.waitFor("the viewer's explain page from its top", (t) => has(t.lines(), "how this run was set up", "esc back"));
		pi.release("b1");
	}, 90_000);

	it("items 3 and 4: the viewer holds its place while output arrives, says where it is; its keys show esc back", async () => {
		pi = await startPi({ fixture: "tui-model.ts", cols, rows });
		await pi.submit("spawn long1");
		await pi.waitFor("long1 running", (t) => started(t, "long1"));
		for (let step = 0; step < 10; step++) pi.release(`long1-${step}`);
		await pi.submit("/subagents");
		await pi.waitFor("the view", (t) => has(t.lines(), "sub-agent runs of this session"));
		await pi.pressUntil(KEYS.enter, "the viewer with step 9", (t) => has(t.lines(), "step 9 of long1") && has(t.lines(), "esc back"));
		for (let i = 0; i < 4; i++) pi.write(KEYS.up);
		await pi.waitFor("scrolled back", (t) => t.lines().some((line) => /── \d+ more below · .*%/.test(line)));
		const before = pi.lines();
		const below = (lines: string[]) => Number(/── (\d+) more below/.exec(lines.find((line) => line.includes("more below")) ?? "")?.[1] ?? -1);
		// The viewer's header is the last line naming the run (the widget above names it too); the body starts two lines below.
		const body = (lines: string[]) => lines[lines.findLastIndex((line) => line.includes("long1 task")) + 2];
		const firstBody = body(before);
		const count = below(before);
		pi.release("long1-10");
		await pi.waitFor("more lines below, the same lines shown", (t) => below(t.lines()) > count);
		expect(body(pi.lines())).toBe(firstBody);
		expect(has(pi.lines(), "esc back")).toBe(true);
		pi.write(END);
		await pi.waitFor("following again", (t) => has(t.lines(), "100%") && !has(t.lines(), "more below"));
		pi.release("long1-11");
	}, 90_000);

	it("item 6: a queued run's viewer shows its task and that steering is held; the note goes when the run ends", async () => {
		pi = await startPi({ fixture: "tui-model.ts", cols, rows, settings: { maxConcurrent: 1 } });
		await pi.submit("spawn c1 c2");
		await pi.waitFor("one running, one queued", (t) => started(t, "c1") && has(t.aboveEditor(), "1 queued"));
		await pi.submit("/subagents");
		await pi.waitFor("the view", (t) => has(t.lines(), "sub-agent runs of this session"));
		pi.write(KEYS.down);
		await pi.waitFor("c2 selected", (t) => t.lines().some((line) => line.startsWith("›") && line.includes("c2")));
		await pi.pressUntil(KEYS.enter, "c2's viewer with its task", (t) => has(t.lines(), "› task c2"));
		expect(pi.screen()).not.toMatch(/queued · queued .* · queued/);
		pi.write("s");
		await pi.waitFor("the composer says the message is held", (t) => has(t.lines(), "steer ›", "held"));
		pi.write("wait for it");
		await pi.waitFor("typed", (t) => has(t.lines(), "wait for it"));
		pi.write(KEYS.enter);
		await pi.waitFor("held note", (t) => has(t.lines(), "Held for"));
		pi.release("c1");
		pi.release("c2");
		await pi.waitFor("c2 done and the note gone", (t) => has(t.lines(), "c2 done STEERED: wait for it") && !has(t.lines(), "Held for"));
	}, 90_000);

	it("item 7: widget rows keep their order, show their ids and spin; every row one layout; the foreground row keeps its description and id", async () => {
		pi = await startPi({ fixture: "tui-model.ts", cols, rows, settings: { ui: { widget: "all" } } });
		await pi.submit("spawn d1 d2");
		await pi.waitFor("two rows with ids", (t) => t.aboveEditor().filter((line) => /general-purpose-\w+/.test(line)).length >= 2 && has(t.aboveEditor(), "d1 task", "d2 task"));
		const frames = new Set<string>();
		await pi.waitFor("the spinner moves", (t) => {
			const icon = SPINNER.exec(t.aboveEditor().join("\n"))?.[0];
			if (icon) frames.add(icon);
			return frames.size >= 2;
		});
		pi.release("d1");
		await pi.waitFor("d1 finished, still the first row", (t) => {
			const rowsAbove = t.aboveEditor().filter((line) => /task/.test(line));
			return (rowsAbove[0] ?? "").includes("✓") && (rowsAbove[0] ?? "").includes("d1 task");
		});
		const heads = pi.aboveEditor().filter((line) => /task/.test(line));
		const oneLine = heads.map((line) => /\d+ tok/.test(line));
		expect(new Set(oneLine).size, pi.aboveEditor().join("\n")).toBe(1);
		pi.release("d2");
		await pi.waitFor("the widget cleared", (t) => !has(t.aboveEditor(), "task"));
		await pi.submit("foreground f1");
		// The widget's row (not the tool row, which starts with "subagent"): its headline, then the id on it or under it.
		await pi.waitFor("the foreground row with its description and id", (t) => {
			const lines = t.lines();
			const head = lines.findIndex((line) => /^\S general-purpose · f1 task/.test(line));
			return head >= 0 && /general-purpose-\w{6}/.test(`${lines[head]} ${lines[head + 1] ?? ""}`);
		});
		await pi.waitFor("the tool row with the id", (t) => {
			const lines = t.lines();
			const call = lines.findIndex((line) => /subagent \S general-purpose · f1 task/.test(line));
			return call >= 0 && /general-purpose-\w{6}/.test(`${lines[call]} ${lines[call + 1] ?? ""}`);
		});
		pi.release("f1");
		await pi.waitFor("the summary counts tools", (t) => t.lines().some((line) => /✓ completed .*1 tool/.test(line)));
	}, 90_000);

	it("item 8: /subagents list columns align with escaped text; the list opens on a running run; the spawn row follows its run", async () => {
		pi = await startPi({ fixture: "tui-model.ts", cols, rows });
		await pi.submit("spawn e1");
		await pi.waitFor("e1 running", (t) => started(t, "e1"));
		pi.release("e1");
		await pi.waitFor("e1 notified", (t) => has(t.lines(), "parent: noted"));
		// At 14 rows the chat has no room left for the spawn row under the notification.
		if (rows >= 20) await pi.waitFor("the spawn row says the run completed", (t) => t.lines().some((line) => line.includes("↗") && line.includes("completed")) && !t.lines().some((line) => line.includes("(running)")));
		await pi.submit("spawn-odd e2");
		await pi.waitFor("e2 running", (t) => started(t, "e2"));
		await pi.submit("/subagents");
		await pi.waitFor("the view on the running run", (t) => t.lines().some((line) => line.startsWith("›") && line.includes("e2")));
		pi.write(KEYS.escape);
		await pi.waitFor("the editor", (t) => !has(t.lines(), "sub-agent runs of this session"));
		pi.write("/subagents list");
		await pi.waitFor("typed", (t) => has(t.lines(), "/subagents list"));
		// Enter may first take the completion pi offers; it is pressed again until the list prints.
		// The printed rows: an id, then two spaces or more, then the state (not the widget's or the child list's rows).
		const row = /^\s*general-purpose-\w{6} {2,}(completed|running) /;
		await pi.pressUntil(KEYS.enter, "the list printed", (t) => t.lines().filter((line) => row.test(line)).length >= 2);
		const listed = pi.lines().filter((line) => row.test(line));
		const column = listed.map((line) => line.search(/completed|running/));
		expect(new Set(column).size, listed.join("\n")).toBe(1);
		pi.release("e2");
	}, 90_000);

	it("the child list under the editor: ↓ from an empty prompt selects a child, Enter opens its conversation", async () => {
		pi = await startPi({ fixture: "tui-model.ts", cols, rows });
		await pi.submit("spawn g1 g2");
		await pi.waitFor("the list under the editor", (t) => has(t.footer(), "g1 task", "g2 task", "↓"));
		await pi.pressUntil(KEYS.down, "g1 selected", (t) => t.footer().some((line) => line.startsWith("›") && line.includes("g1 task")));
		pi.write(KEYS.down);
		await pi.waitFor("g2 selected", (t) => t.footer().some((line) => line.startsWith("›") && line.includes("g2 task")));
		pi.write(KEYS.enter);
		await pi.waitFor("g2's conversation", (t) => has(t.lines(), "› task g2", "esc back"));
		pi.write(KEYS.escape);
		await pi.waitFor("the list view", (t) => has(t.lines(), "sub-agent runs of this session"));
		pi.write(KEYS.escape);
		await pi.waitFor("the editor and the child list again", (t) => has(t.footer(), "g1 task") && !has(t.lines(), "sub-agent runs of this session"));
		pi.write("h");
		await pi.waitFor("typing goes to the editor", (t) => t.lines().some((line) => line.trim() === "h"));
		pi.release("g1");
		pi.release("g2");
	}, 90_000);
});
