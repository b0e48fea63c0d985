/**
 * Without pi's TUI (print, JSON and RPC modes) none of cadre's UI runs and nothing breaks (issue 11
 * item 4): no widget, status, view or timer is set up, the change hook does nothing, `/subagents`
 * prints text; the real `pi -p` prints the parent's answer and `pi --mode rpc` sends no widget or
 * status request for cadre while children run.
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
	explain: () => "",
	cwd: () => "/",
	widgetMode: () => "background" as const,
	types: () => [],
};

describe("cadre's UI without a TUI", () => {
	for (const mode of ["print", "json", "rpc"]) {
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

	it("pi -p: the printed output is the parent's answer; a foreground child's rows are never drawn", () => {
		const world = piWorld("no-tui-p-");
		writeFileSync(join(world.project, "release-sigma"), "");
		const result = runPi(world, { fixture: "tui-model.ts", prompt: "foreground sigma" });
		expect(result.stderr).not.toMatch(/Error|cadre supports pi/);
		expect(result.stdout.trim()).toBe("parent: foreground finished");
		expect(result.status).toBe(0);
	});

	it("pi --mode rpc: children run, notifications arrive, and cadre sends no widget or status request", async () => {
		const world = piWorld("no-tui-rpc-");
		const command = piCommand(world, { fixture: "tui-model.ts", prompt: "" });
		const args = [...command.args.slice(0, command.args.indexOf("-p")), "--mode", "rpc"];
		const child = spawn(command.bin, args, { cwd: command.cwd, env: command.env, stdio: ["pipe", "pipe", "pipe"] });
		let out = "";
		const seen = (text: string) =>
			new Promise<void>((resolve, reject) => {
				const timer = setTimeout(() => reject(new Error(`no ${text} in:\n${out}`)), 40_000);
				const check = () => {
					if (!out.includes(text)) return;
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
			await seen("parent: spawned");
			writeFileSync(join(world.project, "release-rho"), "");
			await seen("parent: noted");
		} finally {
			child.kill();
		}
		const requests = out
			.split("\n")
			.filter((line) => line.startsWith("{"))
			.map((line) => JSON.parse(line) as { type?: string; method?: string; widgetKey?: string; statusKey?: string })
			.filter((event) => event.type === "extension_ui_request");
		expect(requests.filter((request) => request.widgetKey === "cadre" || request.statusKey === "cadre")).toEqual([]);
	}, 60_000);
});
