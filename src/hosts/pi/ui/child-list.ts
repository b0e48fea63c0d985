/**
 * The child list under the editor (issue 24): one line per live child of this process — spinner,
 * id, description, state and time — reachable from an empty prompt with ↓: then ↑↓ select, Enter
 * opens the child's conversation in the `/subagents` view, Esc (or ↑ from the first row, or any
 * other key, which goes on to the editor) gives the keys back. `ui.list: false` in settings turns
 * it off. The lines are a pure function; {@link createChildList} wires pi's below-editor widget and
 * its raw input hook.
 */
import type { Component, TUI } from "@earendil-works/pi-tui";
import { matchesKey } from "@earendil-works/pi-tui";
import type { RunRecord } from "../../../runtime/runs.ts";
import { legendText } from "./legend.ts";
import type { LiveFeed } from "./live-feed.ts";
import { LinesComponent } from "./lines-component.ts";
import { formatDuration, isEnded, type RunView, viewOfRecord } from "./run-view.ts";
import { inTreeOrder, treeIndent } from "../../../runtime/run-tree.ts";
import { liveIcon } from "./spinner.ts";
import { fit, type Style } from "./text.ts";

/** The key of the list's widget. */
export const LIST_KEY = "cadre-list";
/** The most children the list names; the rest are counted. */
export const MAX_LIST_ROWS = 5;

/** The children the list names: queued and running runs, in the order they were created, each run's children under it. */
export function listedRuns(runs: readonly RunRecord[]): RunRecord[] {
	return inTreeOrder(runs.filter((run) => !isEnded(run.state)));
}

/** The list's lines: a row per child (the selected one marked while the list has the keys), then its keys. */
export function childListLines(views: readonly RunView[], selected: number | null, width: number, style: Style, now: number | null = null): string[] {
	if (views.length === 0) return [];
	const first = selected === null ? 0 : Math.max(0, Math.min(selected - MAX_LIST_ROWS + 1, views.length - MAX_LIST_ROWS));
	const rows = views.slice(first, first + MAX_LIST_ROWS).map((view, offset) => {
		const time = view.state === "queued" ? `queued ${formatDuration(view.queuedMs)}` : view.runningMs === null ? view.state : `${view.state} ${formatDuration(view.runningMs)}`;
		const sandbox = view.sandboxed === null ? "" : view.sandboxed ? " · sandboxed" : " · not sandboxed";
		const spent = view.budget === null ? "" : ` · ${view.budget}`;
		const text = `${treeIndent(view.depth)}${liveIcon(view.state, style, now)} ${view.id} · ${view.description} ${style.fg("dim", `· ${time}${spent}${sandbox}`)}`;
		return fit(first + offset === selected ? `${style.fg("accent", "›")} ${style.bold(text)}` : `  ${text}`, width);
	});
	const hidden = views.length - rows.length;
	const keys =
		selected === null
			? legendText([{ keys: "↓", label: "from an empty prompt: select a child", short: "selects", keep: true }], width - (hidden > 0 ? 12 : 0))
			: legendText([{ keys: "↑↓", label: "select", keep: true }, { keys: "enter", label: "open", keep: true }, { keys: "esc", label: "editor", keep: true }], width);
	return [...rows, fit(style.fg("dim", `${hidden > 0 ? `… ${hidden} more · ` : ""}${keys}`), width)];
}

/** The part of pi's `ctx.ui` the list uses. */
export interface ChildListUi {
	setWidget(key: string, content: ((tui: TUI, theme: Style) => Component) | undefined, options?: { placement?: "aboveEditor" | "belowEditor" }): void;
	onTerminalInput(handler: (data: string) => { consume?: boolean } | undefined): () => void;
	getEditorText(): string;
}

/** Options for {@link createChildList}. */
export interface ChildListOptions {
	ui: ChildListUi;
	runs(): readonly RunRecord[];
	/** Settings `ui.list`. */
	enabled(): boolean;
	feed: LiveFeed;
	/** Whether the `/subagents` view is open (the list then steps aside and never takes the keys). */
	busy(): boolean;
	/** Open the `/subagents` view on this run's conversation. */
	open(id: string): void;
}

/** The list controller: follows the feed, shows the widget below the editor, takes the arrow keys when asked. */
export function createChildList(options: ChildListOptions): { dispose(): void } {
	let views: RunView[] = [];
	let selected: number | null = null;
	let shown = false;
	let component: LinesComponent | null = null;
	let tui: TUI | null = null;
	const redraw = () => {
		component?.invalidate();
		tui?.requestRender();
	};
	const update = () => {
		const now = Date.now();
		views = options.enabled() && !options.busy() ? listedRuns(options.runs()).map((run) => viewOfRecord(run, now)) : [];
		if (selected !== null) selected = views.length === 0 ? null : Math.min(selected, views.length - 1);
		if (views.length === 0) {
			if (shown) options.ui.setWidget(LIST_KEY, undefined);
			shown = false;
			component = null;
			return;
		}
		if (shown) return redraw();
		shown = true;
		options.ui.setWidget(
			LIST_KEY,
			(host, theme) => {
				tui = host;
				// Still icons: the list redraws with the feed (once a second while runs live), too slow for a spinner.
				component = new LinesComponent((width) => childListLines(views, selected, width, theme));
				return component;
			},
			{ placement: "belowEditor" },
		);
	};
	const release = () => {
		selected = null;
		redraw();
	};
	const unsubscribeInput = options.ui.onTerminalInput((data) => {
		if (selected === null) {
			if (views.length === 0 || options.busy() || !matchesKey(data, "down") || options.ui.getEditorText() !== "") return undefined;
			selected = 0;
			redraw();
			return { consume: true };
		}
		if (matchesKey(data, "up")) {
			if (selected === 0) release();
			else selected -= 1;
		} else if (matchesKey(data, "down")) selected = Math.min(views.length - 1, selected + 1);
		else if (matchesKey(data, "enter")) {
			const view = views[selected];
			release();
			if (view) options.open(view.id);
		} else if (matchesKey(data, "escape")) release();
		else {
			// Any other key is the editor's again.
			release();
			return undefined;
		}
		redraw();
		return { consume: true };
	});
	const unsubscribe = options.feed.subscribe(update);
	update();
	return {
		dispose() {
			unsubscribe();
			unsubscribeInput();
			try {
				if (shown) options.ui.setWidget(LIST_KEY, undefined);
			} catch {
				// the session's UI may be gone already
			}
		},
	};
}
