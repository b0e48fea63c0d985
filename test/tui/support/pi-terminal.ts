/**
 * The real `pi` binary in a pseudo-terminal (`@lydell/node-pty`), its screen read the way a
 * terminal draws it (`@xterm/headless`, which also answers pi's terminal queries), with cadre
 * loaded from this checkout (`-e <repo>`) and a scripted faux model, offline, in its own HOME,
 * agent dir and project (ADR 0083). Tests wait for screen states — never for fixed times — so they
 * hold on a loaded machine: {@link PiTerminal.waitFor} polls the screen until a predicate holds.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pty from "@lydell/node-pty";
import xterm from "@xterm/headless";
import { type PiWorld, piCommand, piWorld } from "../../support/pi-cli.ts";

/** Keys as a terminal sends them. */
export const KEYS = { enter: "\r", escape: "\x1b", up: "\x1b[A", down: "\x1b[B", altS: "\x1bs", ctrlD: "\x04" } as const;

export interface PiTerminalOptions {
	/** The faux-model extension under test/pi/fixtures/. */
	fixture: string;
	/** `<agentDir>/subagents.json`. */
	settings?: Record<string, unknown>;
	cols?: number;
	rows?: number;
	/** pi flags (e.g. `-c` to continue the last session). */
	flags?: string[];
	/** Run in this world again (a second pi on the same HOME, agent dir and project). */
	world?: PiWorld;
}

export interface PiTerminal {
	world: PiWorld;
	project: string;
	/** The visible screen, one string per row (trailing spaces trimmed). */
	lines(): string[];
	screen(): string;
	/** The rows directly above the editor's top border: widgets. */
	aboveEditor(): string[];
	/** The footer: the rows below the editor's bottom border. */
	footer(): string[];
	write(data: string): void;
	/** Type text into the editor, wait until it shows, press Enter. */
	submit(text: string): Promise<void>;
	/**
	 * Press `key` until `predicate` holds: pi can drop a key that arrives while it is still busy with
	 * what it just drew (seen right after a resumed session's first view), so the key is sent again
	 * each `retryMs` while the screen has not reached the state.
	 */
	pressUntil(key: string, description: string, predicate: (terminal: PiTerminal) => boolean, retryMs?: number): Promise<void>;
	/** Poll the screen until `predicate` holds; throws with the screen after `timeoutMs`. */
	waitFor(description: string, predicate: (terminal: PiTerminal) => boolean, timeoutMs?: number): Promise<void>;
	/** Lets the scripted child NAME finish (creates `release-NAME` in the project). */
	release(name: string): void;
	/** The child requests the fixture logged. */
	childRequests(): { name: string; texts: string[] }[];
	/** Resolves when pi has exited by itself. */
	exited(): Promise<void>;
	close(): Promise<void>;
}

const BORDER = /^─{20,}$/;

/** Start pi and wait until its editor is ready. */
export async function startPi(options: PiTerminalOptions): Promise<PiTerminal> {
	const world = options.world ?? piWorld("tui-");
	if (options.settings) writeFileSync(join(world.agentDir, "subagents.json"), JSON.stringify(options.settings));
	const project = world.project;
	const log = join(world.root, "child-requests.jsonl");
	const cols = options.cols ?? 120;
	const rows = options.rows ?? 40;
	// The same command as the `pi -p` tests, without `-p`: interactive.
	const command = piCommand(world, { fixture: options.fixture, prompt: "", flags: options.flags, env: { CADRE_TUI_LOG: log } });
	const term = new xterm.Terminal({ cols, rows, allowProposedApi: true });
	const child = pty.spawn(command.bin, command.args.slice(0, command.args.indexOf("-p")), { cols, rows, cwd: command.cwd, name: "xterm-256color", env: command.env });
	let exited = false;
	const exit = new Promise<void>((resolve) => child.onExit(() => resolve()));
	void exit.then(() => (exited = true));
	child.onData((data) => term.write(data));
	// pi queries the terminal (colours, capabilities); xterm answers like a real one.
	term.onData((data) => child.write(data));

	const lines = () => {
		const buffer = term.buffer.active;
		return Array.from({ length: term.rows }, (_, row) => buffer.getLine(buffer.viewportY + row)?.translateToString(true) ?? "");
	};
	const borders = () => lines().flatMap((line, index) => (BORDER.test(line.trim()) ? [index] : []));

	const terminal: PiTerminal = {
		world,
		project,
		lines,
		screen: () => lines().join("\n"),
		aboveEditor() {
			const all = lines();
			const top = borders().at(-2);
			if (top === undefined) return [];
			const above: string[] = [];
			for (let row = top - 1; row >= 0 && (all[row] ?? "").trim() !== ""; row--) above.unshift(all[row] ?? "");
			return above;
		},
		footer() {
			const bottom = borders().at(-1);
			return bottom === undefined ? [] : lines().slice(bottom + 1);
		},
		write: (data) => child.write(data),
		async submit(text) {
			child.write(text);
			await terminal.waitFor(`the editor shows ${JSON.stringify(text)}`, (t) => t.lines().some((line) => line.includes(text)));
			child.write(KEYS.enter);
		},
		async pressUntil(key, description, predicate, retryMs = 2000) {
			const deadline = Date.now() + 25_000;
			for (;;) {
				child.write(key);
				try {
					await terminal.waitFor(description, predicate, Math.min(retryMs, Math.max(0, deadline - Date.now())));
					return;
				} catch (error) {
					if (Date.now() >= deadline || exited) throw error;
				}
			}
		},
		async waitFor(description, predicate, timeoutMs = 25_000) {
			const deadline = Date.now() + timeoutMs;
			for (;;) {
				if (predicate(terminal)) return;
				if (exited) throw new Error(`pi exited while waiting for ${description}:\n${terminal.screen()}`);
				if (Date.now() > deadline) throw new Error(`timed out waiting for ${description}; the screen:\n${terminal.screen()}`);
				await new Promise((resolve) => setTimeout(resolve, 50));
			}
		},
		release: (name) => writeFileSync(join(project, `release-${name}`), ""),
		childRequests: () =>
			existsSync(log)
				? readFileSync(log, "utf8")
						.trim()
						.split("\n")
						.filter(Boolean)
						.map((line) => JSON.parse(line) as { name: string; texts: string[] })
				: [],
		async exited() {
			await exit;
		},
		async close() {
			if (!exited) child.kill();
			await Promise.race([exit, new Promise((resolve) => setTimeout(resolve, 3000))]);
			term.dispose();
		},
	};
	// Ready: the editor's borders and pi's footer (the model name) are drawn.
	await terminal.waitFor("pi's editor", (t) => borders().length >= 2 && t.footer().some((line) => line.includes("scripted")), 40_000);
	return terminal;
}
