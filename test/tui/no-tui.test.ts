/**
 * Without pi's TUI none of cadre's TUI runs and nothing breaks (issue 11 item 4): in print and JSON
 * modes no widget, status, view or timer is set up, the change hook does nothing, `/subagents`
 * prints text, and the real `pi -p` prints the parent's answer. In RPC mode (issue 24 item 9) the
 * status and a string-line widget go to the client: the real `pi --mode rpc` sends a `setWidget`
 * naming a background child while it runs, and clears it after the child ends.
 */
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { registerCadreUi } from "../../src/hosts/pi/ui/index.ts";
import { piCommand, piWorld, runPi } from "../support/pi-cli.ts";
import { record } from "../ui/support.ts";

/** A pi API that records what is registered, and a context whose UI fails every call. */
function fakePi() {
	const handlers = new Map<string, ((event: unknown, ctx: ExtensionContext) => unknown)[]>();
	const registered: string[] = [];
	const pi = {
		on: (event: string, handler: (event: unknown, ctx: ExtensionContext) => unknown) => handlers.set(event, [...(handlers.get(event) ?? []), handler]),
		registerToolRenderer: () => registered.push("tool renderer"),
		registerMessageRenderer: (type: string) => registered.push(`message renderer ${type}`),
		registerShortcut: (key: string) => registered.push(`shortcut ${key}`),
	} as unknown as ExtensionAPI;
	const ui = new Proxy(
		{},
		{
			get: (_target, name) => () => {
				throw new Error(`ctx.ui.${String(name)} was called without a TUI`);
			},
		},
	);
	const ctx = (mode: string) => ({ mode, hasUI: mode === "rpc", ui }) as unknown as ExtensionContext;
	const emit = async (event: string, context: ExtensionContext) => {
		for (const handler of handlers.get(event) ?? []) await handler({ type: event }, context);
	};
	return { pi, registered, ctx, emit };
}

/** A session with a running and a queued background child: a TUI would draw a widget and a status. */
const running = [record(), record({ id: "queued-1", state: "queued", startedAt: null })];
const host = {
	runs: () => running,
	ownRuns: () => running,
	get: (id: string) => running.find((run) => run.id === id),
	conversation: () => null,
	steer: async () => {},
	stop: async () => undefined,
	cwd: () => "/",
	widgetMode: () => "background" as const,
	childList: () => true,
	types: () => [],
};

describe("cadre's UI without a TUI", () => {
	for (const mode of ["print", "json"]) {
		it(`in ${mode} mode sets up nothing and the change hook and the view are no-ops`, async () => {
			const fake = fakePi();
			const ui = registerCadreUi(fake.pi, host);
			await fake.emit("session_start", fake.ctx(mode));
			for (let i = 0; i < 100; i++) ui.onChange();
			expect(await ui.openView(fake.ctx(mode))).toBe(false);
			await fake.emit("session_shutdown", fake.ctx(mode));
			// Renderers are registered (only the TUI ever calls them).
			expect(fake.registered).toEqual(["tool renderer", "message renderer cadre-notification", "shortcut alt+s"]);
		});
	}

	it("in rpc mode sets the status and the widget as string lines naming the runs; no view", async () => {
		const fake = fakePi();
		const calls: { method: string; key: string; value: unknown }[] = [];
		const ui = { setWidget: (key: string, value: unknown) => calls.push({ method: "setWidget", key, value }), setStatus: (key: string, value: unknown) => calls.push({ method: "setStatus", key, value }) };
		const ctx = { mode: "rpc", hasUI: true, ui } as unknown as ExtensionContext;
		const cadreUi = registerCadreUi(fake.pi, host);
		await fake.emit("session_start", ctx);
		expect(await cadreUi.openView(ctx)).toBe(false);
		const widget = calls.find((call) => call.method === "setWidget");
		expect(Array.isArray(widget?.value)).toBe(true);
		expect((widget?.value as string[]).join("\n")).toContain(running[0]?.id);
		expect(calls.find((call) => call.method === "setStatus")?.value).toBe("cadre: 1 running · 1 queued");
		await fake.emit("session_shutdown", ctx);
		expect(calls.at(-2)).toEqual({ method: "setWidget", key: "cadre", value: undefined });
	});

	it("pi -p: the printed output is the parent's answer; a foreground child's rows are never drawn", () => {
		const world = piWorld("no-tui-p-");
		writeFileSync(join(world.project, "release-sigma"), "");
		const result = runPi(world, { fixture: "tui-model.ts", prompt: "foreground sigma" });
		expect(result.stderr).not.toMatch(/Error|cadre supports pi/);
		expect(result.stdout.trim()).toBe("parent: foreground finished");
		expect(result.status).toBe(0);
	});

	it("pi --mode rpc: a background child's id is in a setWidget request while it runs and gone after it ends", async () => {
		const world = piWorld("no-tui-rpc-");
		const command = piCommand(world, { fixture: "tui-model.ts", prompt: "" });
		const args = [...command.args.slice(0, command.args.indexOf("-p")), "--mode", "rpc"];
		const child = spawn(command.bin, args, { cwd: command.cwd, env: command.env, stdio: ["pipe", "pipe", "pipe"] });
		let out = "";
		type UiRequest = { type?: string; method?: string; widgetKey?: string; widgetLines?: string[]; statusKey?: string; statusText?: string };
		const requests = () =>
			out
				.split("\n")
				.filter((line) => line.startsWith("{"))
				.map((line) => JSON.parse(line) as UiRequest)
				.filter((event) => event.type === "extension_ui_request");
		const cadreWidgets = () => requests().filter((request) => request.method === "setWidget" && request.widgetKey === "cadre");
		const until = (what: string, predicate: () => boolean) =>
			new Promise<void>((resolve, reject) => {
				const timer = setTimeout(() => reject(new Error(`no ${what} in:\n${out}`)), 40_000);
				const check = () => {
					if (!predicate()) return;
					clearTimeout(timer);
					child.stdout.off("data", check);
					resolve();
				};
				child.stdout.on("data", check);
				check();
			});
		child.stdout.on("data", (data: Buffer) => {
			out += data.toString();
		});
		try {
			child.stdin.write(`${JSON.stringify({ id: "p1", type: "prompt", message: "spawn rho" })}\n`);
			await until("a widget naming rho's run", () => cadreWidgets().some((request) => /general-purpose-\w+ /.test((request.widgetLines ?? []).join("\n")) && (request.widgetLines ?? []).join("\n").includes("rho task")));
			const id = /(general-purpose-\w+) /.exec(cadreWidgets().flatMap((request) => request.widgetLines ?? []).join("\n"))?.[1] ?? "";
			expect(requests().some((request) => request.method === "setStatus" && request.statusKey === "cadre" && request.statusText === "cadre: 1 running")).toBe(true);
			writeFileSync(join(world.project, "release-rho"), "");
			await until("the widget cleared after rho ended", () => {
				const last = cadreWidgets().at(-1);
				return last !== undefined && last.widgetLines === undefined;
			});
			expect(id).not.toBe("");
			expect(cadreWidgets().at(-1)?.widgetLines ?? []).not.toContain(id);
			expect(requests().filter((request) => request.statusKey === "cadre").at(-1)?.statusText).toBeUndefined();
		} finally {
			child.kill();
		}
	}, 60_000);
});
