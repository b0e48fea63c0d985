/**
 * The live widget above pi's editor and the footer status (issue 11 item 1, ADR 0081): one row per
 * running run (background runs, or every run with `ui.widget: all`) — state icon, type,
 * description, turns (of `max_turns`), tool uses, tokens with context %, cost, running time and the
 * time it queued — and a second line with the current activity; finished rows linger a few seconds;
 * `N queued` at the bottom. The footer says `cadre: 2 running · 1 queued`. Rendering follows the
 * throttled {@link LiveFeed} (which also ticks each second while runs are live, so elapsed times
 * move and lingering rows go); nothing here runs on the spawn path.
 */
import type { Component, TUI } from "@earendil-works/pi-tui";
import type { RunRecord } from "../../../runtime/runs.ts";
import type { LiveFeed } from "./live-feed.ts";
import { childIndex, collapsedCounts, inTreeOrder } from "../../../runtime/run-tree.ts";
import { LinesComponent } from "./lines-component.ts";
import { isEnded, type RunView, statsParts, viewOfRecord } from "./run-view.ts";
import { liveIcon, SPINNER_MS } from "./spinner.ts";
import { fit, flow, plainStyle, type Style, widthOf } from "./text.ts";

/** Settings `ui.widget`: which runs get rows. */
export type WidgetMode = "background" | "all" | "off";

/** How long a finished row stays (ms). */
export const LINGER_MS = 5000;
/** The most runs the widget lists; the rest are counted. */
export const MAX_WIDGET_ROWS = 8;
/** The key of cadre's widget and footer status in pi's UI. */
export const UI_KEY = "cadre";

/** What the widget shows at one moment. */
export interface WidgetSnapshot {
	/** Running runs and the finished ones still lingering, in the order they were created (rows never move). */
	rows: RunView[];
	/** Queued runs in scope. */
	queued: number;
	/** Running runs in scope (including those beyond {@link MAX_WIDGET_ROWS}). */
	running: number;
}

/** The runs in scope for the mode: background ones, or all (`off` still scopes the footer count). */
function inScope(run: RunRecord, mode: WidgetMode): boolean {
	// A nested run shows with the tree it belongs to (its lead is what the mode scopes).
	return mode === "all" || run.background || (run.parentId ?? null) !== null;
}

/** What the widget shows of `runs` at `now`. */
export function widgetSnapshot(runs: readonly RunRecord[], mode: WidgetMode, now: number = Date.now(), lingerMs = LINGER_MS): WidgetSnapshot {
	// One pass over the session's runs, however many ended long ago (a long session has thousands).
	const shown: RunRecord[] = [];
	let running = 0;
	let queued = 0;
	for (const run of runs) {
		if (!inScope(run, mode)) continue;
		if (run.state === "queued") queued++;
		else if (run.state === "running") {
			running++;
			shown.push(run);
		} else if (run.endedAt !== null && now - run.endedAt < lingerMs && isEnded(run.state)) shown.push(run);
	}
	// One order for running and finished rows: a run that ends stays where it was.
	// A nested run sits under its parent (issue 21): tree order keeps rows in place too.
	const shownRuns = inTreeOrder(shown);
	const children = childIndex(runs);
	return {
		rows: shownRuns.map((run) => ({ ...viewOfRecord(run, now), below: collapsedCounts(run, children) })),
		queued,
		running,
	};
}

/** From this width a row is one line (headline and stats); narrower, every row is two. */
export const ONE_LINE_WIDTH = 120;

/** How a row is drawn: the spinner's clock (null: a still icon) and how deep it sits (for nested runs). */
export interface RowOptions {
	now?: number | null;
	/** Nesting depth: each level indents the row by two columns. */
	depth?: number;
}

/**
 * The rows of one run: the headline (state, type, description), its id and stats — on the same
 * line from {@link ONE_LINE_WIDTH} columns, on a second line below — and its activity. The layout
 * depends on the width only, so every row of a widget has the same one.
 */
export function runRows(view: RunView, width: number, style: Style, options: RowOptions = {}): string[] {
	const indent = "  ".repeat(options.depth ?? 0);
	const below = view.below ? ` ${style.fg("muted", `(${view.below})`)}` : "";
	const head = `${indent}${liveIcon(view.state, style, options.now ?? null)} ${style.bold(view.type)} · ${view.description}${below}`;
	const stats = style.fg("dim", [view.id, ...statsParts(view)].join(" · "));
	const lines: string[] = [];
	if (width >= ONE_LINE_WIDTH) {
		// The stats keep their room; the description is cut first.
		const room = Math.max(10, width - widthOf(stats) - 2);
		lines.push(fit(`${fit(head, room)}  ${stats}`, width));
	} else {
		// The headline alone, the id and the stats below it (flowed onto more lines when short).
		lines.push(fit(head, width), ...flow([view.id, ...statsParts(view)], width, `${indent}  `).map((line) => style.fg("dim", line)));
	}
	if (view.activity !== null) lines.push(fit(`${indent}  ${style.fg("muted", `↳ ${view.activity}`)}`, width));
	if (view.error !== null && view.state === "failed") lines.push(fit(`${indent}  ${style.fg("error", view.error)}`, width));
	return lines;
}

/**
 * The widget's lines at `width`, at most `maxLines` of them (whole rows; what does not fit is
 * counted on the last line); empty when there is nothing to show. `now` turns the spinner.
 */
export function widgetLines(snapshot: WidgetSnapshot, width: number, style: Style, now: number | null = null, maxLines = Number.POSITIVE_INFINITY): string[] {
	const lines: string[] = [];
	const rows = snapshot.rows.slice(0, MAX_WIDGET_ROWS);
	let shownRows = 0;
	for (const [index, view] of rows.entries()) {
		const row = runRows(view, width, style, { now, depth: (view.depth ?? 1) - 1 });
		// The last line is kept for the count of what is left out, unless this is the last of everything.
		const last = index === snapshot.rows.length - 1 && snapshot.queued === 0;
		if (lines.length + row.length > maxLines - (last ? 0 : 1) && shownRows > 0) break;
		lines.push(...row);
		shownRows++;
	}
	const hidden = snapshot.rows.length - shownRows;
	const rest = [hidden > 0 ? `… ${hidden} more` : "", snapshot.queued > 0 ? `${snapshot.queued} queued` : ""].filter(Boolean).join(" · ");
	if (rest) lines.push(fit(style.fg("muted", rest), width));
	return lines;
}

/** The most lines the widget takes of a terminal of `rows` rows: a third, so the chat and the editor keep theirs. */
export function widgetHeight(rows: number): number {
	return Math.max(3, Math.floor(rows / 3));
}

/** The footer status, or undefined when nothing runs or waits. */
export function statusText(snapshot: Pick<WidgetSnapshot, "running" | "queued">): string | undefined {
	const parts = [snapshot.running > 0 ? `${snapshot.running} running` : "", snapshot.queued > 0 ? `${snapshot.queued} queued` : ""].filter(Boolean);
	return parts.length === 0 ? undefined : `cadre: ${parts.join(" · ")}`;
}

/** The part of pi's `ctx.ui` the widget uses. */
export interface WidgetUi {
	setWidget(key: string, content: ((tui: TUI, theme: Style) => Component) | string[] | undefined): void;
	setStatus(key: string, text: string | undefined): void;
}

/** The width of the widget's lines in RPC mode (the client lays them out; rows stay one layout). */
export const RPC_WIDTH = 120;

/** Options for {@link createWidget}. */
export interface WidgetOptions {
	ui: WidgetUi;
	runs(): readonly RunRecord[];
	mode(): WidgetMode;
	feed: LiveFeed;
	/**
	 * `tui` (default): a component pi renders, its running rows spinning; `rpc`: plain string lines
	 * (pi forwards only string arrays to an RPC client), sent again only when they change.
	 */
	kind?: "tui" | "rpc";
	/** The widget steps aside (the `/subagents` view is open and shows the same runs); the status stays. */
	hidden?(): boolean;
	now?(): number;
}

/** The widget controller: subscribes to the feed and keeps pi's widget and status up to date. */
export function createWidget(options: WidgetOptions): { dispose(): void } {
	const now = options.now ?? (() => Date.now());
	const rpc = options.kind === "rpc";
	let snapshot: WidgetSnapshot = { rows: [], queued: 0, running: 0 };
	/** The widget is set in pi (its factory may not have run yet). */
	let shown = false;
	let component: LinesComponent | null = null;
	let tui: TUI | null = null;
	let status: string | undefined;
	/** RPC: the lines last sent. */
	let sent = "";
	/** Redraws the component while a row spins (its frame comes from the clock at render time). */
	let spinner: NodeJS.Timeout | null = null;
	const spin = (on: boolean) => {
		if (on && spinner === null) {
			spinner = setInterval(() => {
				component?.invalidate();
				tui?.requestRender();
			}, SPINNER_MS);
			spinner.unref?.();
		} else if (!on && spinner !== null) {
			clearInterval(spinner);
			spinner = null;
		}
	};

	const clear = () => {
		if (shown) options.ui.setWidget(UI_KEY, undefined);
		shown = false;
		sent = "";
		component = null;
		tui = null;
		spin(false);
	};

	const update = () => {
		const mode = options.mode();
		snapshot = widgetSnapshot(options.runs(), mode, now());
		const nextStatus = statusText(snapshot);
		if (nextStatus !== status) {
			status = nextStatus;
			options.ui.setStatus(UI_KEY, status);
		}
		const visible = mode !== "off" && !options.hidden?.() && (snapshot.rows.length > 0 || snapshot.queued > 0);
		if (!visible) return clear();
		if (rpc) {
			const lines = widgetLines(snapshot, RPC_WIDTH, plainStyle);
			const text = lines.join("\n");
			if (text !== sent) options.ui.setWidget(UI_KEY, lines);
			sent = text;
			shown = true;
			return;
		}
		spin(snapshot.running > 0);
		if (shown) {
			component?.invalidate();
			tui?.requestRender();
			return;
		}
		shown = true;
		options.ui.setWidget(UI_KEY, (host, theme) => {
			tui = host;
			const created = new LinesComponent((width) => widgetLines(snapshot, width, theme, now(), widgetHeight(host.terminal?.rows ?? 24)));
			component = created;
			return created;
		});
	};

	const unsubscribe = options.feed.subscribe(update);
	update();
	return {
		dispose() {
			unsubscribe();
			spin(false);
			try {
				if (shown) options.ui.setWidget(UI_KEY, undefined);
				if (status !== undefined) options.ui.setStatus(UI_KEY, undefined);
			} catch {
				// the session's UI may be gone already
			}
		},
	};
}
