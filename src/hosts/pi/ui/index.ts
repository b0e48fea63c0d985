/**
 * cadre in pi's terminal (issue 11, ADRs 0080–0084): the one function the extension calls to
 * register everything a person sees — the live widget and footer status, the tool rows, the
 * notification renderer, the `/subagents` view with its conversation viewer, the shortcut and the
 * command's completion. Everything is fed by the run registry (records and its change hook) through
 * {@link CadreUiHost}. In RPC mode only the footer status and the widget run, as plain string lines
 * pi forwards to the client (issue 24 item 9); in print and JSON modes none of it runs: no widget,
 * status, timer or view; renderers are only ever called by the TUI.
 */
import type { ExtensionAPI, ExtensionContext, MessageRenderOptions, Theme } from "@earendil-works/pi-coding-agent";
import { Box } from "@earendil-works/pi-tui";
import type { ChildMessage } from "../../../runtime/pi/conversation.ts";
import { readTranscript } from "../../../runtime/pi/conversation.ts";
import type { RunRecord } from "../../../runtime/runs.ts";
import { type ChildListOptions, createChildList } from "./child-list.ts";
import { type CompletionItem, subagentsCompletions } from "./completions.ts";
import { NOTIFICATION_TYPE } from "../notifications.ts";
import { createLiveFeed, type LiveFeed } from "./live-feed.ts";
import { LinesComponent } from "./lines-component.ts";
import { notificationLines } from "./notification-renderer.ts";
import { isEnded } from "./run-view.ts";
import { runWorktreeReport } from "./run-worktree-report.ts";
import { type RunsViewHost, SubagentsScreen } from "./runs-view.ts";
import { createToolRenderers } from "./tool-rendering.ts";
import { createWidget, LINGER_MS, type WidgetMode } from "./widget.ts";

export type { WidgetMode } from "./widget.ts";

/** The keyboard shortcut that opens the `/subagents` view. */
export const VIEW_SHORTCUT = "alt+s";

/** What the UI needs from the running extension (all of it reads the current parent session). */
export interface CadreUiHost {
	/** Every run of the session, earlier processes' first (the view). */
	runs(): readonly RunRecord[];
	/** The runs of this process (the widget and the footer: only they change live). */
	ownRuns(): readonly RunRecord[];
	get(id: string): RunRecord | undefined;
	/** The live child's messages, or null when the run has no live child. */
	conversation(id: string): ChildMessage[] | null;
	steer(id: string, message: string): Promise<void>;
	stop(id: string): Promise<RunRecord | undefined>;
	/** The parent's cwd (the repository worktree reports read). */
	cwd(): string;
	/** Settings `ui.widget`. */
	widgetMode(): WidgetMode;
	/** Settings `ui.list`: the child list under the editor (default on). */
	childList(): boolean;
	/** Enabled type names, for completion. */
	types(): string[];
	/** The merge queue (ADR 0115), `dryRun`: its order only; the view's `m`. */
	mergeQueue?(dryRun: boolean): Promise<{ text: string; branches: number }>;
}

/** What the extension wires: the registry's change hook, the command's view and completion. */
export interface CadreUi {
	/** The registry's `onChange`: O(1), a no-op without a TUI. */
	onChange(): void;
	/** Open the `/subagents` view; false when there is no TUI (the caller prints text instead). */
	openView(ctx: ExtensionContext): Promise<boolean>;
	/** `/subagents` argument completion. */
	completions(argumentText: string): CompletionItem[] | null;
	/** A `subagent` call's run is known (its tool row shows the run live). O(1). */
	toolCall(toolCallId: string, runId: string): void;
}

/** What lives while one TUI session does: the feed, the widget, the tick and the live tool rows. */
interface LiveSession {
	feed: LiveFeed;
	/** Refresh `refresh` on every update until run `runId` ends. */
	track(refresh: () => void, runId: string): void;
	calls: Map<string, string>;
	dispose(): void;
}

/** Start the live parts for a TUI session, or (`rpc`) the feed, the tick and a string-line widget. */
function startLiveSession(ctx: ExtensionContext, host: CadreUiHost, kind: "tui" | "rpc", list: Pick<ChildListOptions, "busy" | "open">): LiveSession {
	const feed = createLiveFeed();
	let ticker: NodeJS.Timeout | null = null;
	/** Tool rows of running children, refreshed on every update until their run ends. */
	const rows = new Map<string, Set<() => void>>();
	/** Tool call id → the run it started (foreground `subagent` calls). */
	const calls = new Map<string, string>();
	const ended = (id: string) => {
		const run = host.get(id);
		return !run || isEnded(run.state);
	};
	const live = () => {
		const now = Date.now();
		return host.ownRuns().some((run) => !isEnded(run.state) || (run.endedAt !== null && now - run.endedAt < LINGER_MS));
	};
	/** One tick a second while anything is live, so elapsed times move and lingering rows go. */
	const tick = () => {
		const isLive = live();
		if (isLive && ticker === null) {
			ticker = setInterval(() => feed.changed(), 1000);
			ticker.unref?.();
		} else if (!isLive && ticker !== null) {
			clearInterval(ticker);
			ticker = null;
		}
	};
	const refreshRows = () => {
		for (const [id, refreshers] of rows) {
			for (const refresh of refreshers) refresh();
			if (ended(id)) rows.delete(id);
		}
		for (const [call, id] of calls) if (ended(id) && !rows.has(id)) calls.delete(call);
	};
	feed.subscribe(tick);
	feed.subscribe(refreshRows);
	const widget = createWidget({ ui: ctx.ui, runs: host.ownRuns, mode: host.widgetMode, feed, kind, hidden: list.busy });
	const children = kind === "tui" ? createChildList({ ui: ctx.ui, runs: host.ownRuns, enabled: host.childList, feed, ...list }) : null;
	return {
		feed,
		calls,
		track(refresh, runId) {
			const set = rows.get(runId) ?? new Set();
			set.add(refresh);
			rows.set(runId, set);
			tick();
		},
		dispose() {
			widget.dispose();
			children?.dispose();
			feed.dispose();
			if (ticker !== null) clearInterval(ticker);
		},
	};
}

/** The notification renderer: the message's children in a box like pi's custom messages. */
function registerNotificationRenderer(pi: ExtensionAPI, record: (id: string) => RunRecord | undefined): void {
	pi.registerMessageRenderer(NOTIFICATION_TYPE, (message, options: MessageRenderOptions, theme: Theme) => {
		const content = typeof message.content === "string" ? message.content : message.content.map((part) => ("text" in part ? part.text : "")).join("");
		const hint = options.keyHint("app.tools.expand", "to expand");
		const box = new Box(options.outputPad, 1, (text) => theme.bg("customMessageBg", text));
		box.addChild(new LinesComponent((width) => notificationLines(message.details, content, options.expanded, width, theme, hint, record)));
		return box;
	});
}

/** What the view and the viewer read: the host, with messages from the live child or the transcript. */
function viewHost(host: CadreUiHost): RunsViewHost {
	return {
		get: host.get,
		runs: host.runs,
		messages: (run: RunRecord) => host.conversation(run.id) ?? (run.transcript ? readTranscript(run.transcript) : []),
		steer: host.steer,
		stop: host.stop,
		worktreeReport: (run: RunRecord) => runWorktreeReport(run, host.cwd()),
		mergeQueue: host.mergeQueue,
	};
}

/** Register cadre's TUI with pi. Call once, from the extension factory. */
export function registerCadreUi(pi: ExtensionAPI, host: CadreUiHost): CadreUi {
	let session: LiveSession | null = null;
	const stop = () => {
		session?.dispose();
		session = null;
	};
	pi.on("session_start", (_event, ctx) => {
		stop();
		// RPC clients (editors that embed pi) get the status and string lines; print and JSON nothing.
		if (ctx.mode === "tui" || ctx.mode === "rpc") session = startLiveSession(ctx, host, ctx.mode, { busy: () => viewOpen, open: (id) => void openView(ctx, id) });
	});
	pi.on("session_shutdown", () => stop());

	const renderers = createToolRenderers({
		get: host.get,
		runOfToolCall: (toolCallId) => session?.calls.get(toolCallId),
		track: (refresh, runId) => session?.track(refresh, runId),
	});
	const byTool: Record<string, unknown> = { subagent: renderers.subagent, get_subagent_result: renderers.fetch, steer_subagent: renderers.steer };
	pi.registerToolRenderer((toolName, next) => (byTool[toolName] as ReturnType<typeof next>) ?? next());
	registerNotificationRenderer(pi, host.get);

	const views = viewHost(host);
	/** The view is open (the child list then leaves the keys alone). */
	let viewOpen = false;
	const openView = async (ctx: ExtensionContext, runId?: string) => {
		const feed = session?.feed;
		if (ctx.mode !== "tui" || !feed || viewOpen) return false;
		viewOpen = true;
		// The widget and the child list step aside while the view shows the runs.
		feed.changed();
		try {
			await ctx.ui.custom<void>((tui, theme, keybindings, done) => new SubagentsScreen({ host: views, tui, theme, keybindings, feed, done: () => done(), runId }));
		} finally {
			viewOpen = false;
			feed.changed();
		}
		return true;
	};
	pi.registerShortcut(VIEW_SHORTCUT, {
		description: "Open cadre's sub-agent runs (/subagents)",
		handler: async (ctx) => {
			await openView(ctx);
		},
	});

	return {
		onChange: () => session?.feed.changed(),
		toolCall(toolCallId, runId) {
			if (session && session.calls.get(toolCallId) !== runId) session.calls.set(toolCallId, runId);
		},
		openView,
		completions: (argumentText) =>
			subagentsCompletions(argumentText, {
				runs: () => host.runs().map((run) => ({ id: run.id, state: run.state, description: run.description })),
				types: host.types,
			}),
	};
}
