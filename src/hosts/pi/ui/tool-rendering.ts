/**
 * How cadre's three tools look in pi's chat (issue 11 item 2): `subagent`, `get_subagent_result`
 * and `steer_subagent`. While a foreground child runs, its row is one compact line (type ·
 * description · turns · tools · tokens · elapsed) and the activity; when it is done, a one-line
 * summary (✓/✗, model, capability, persona, turns, tokens, duration), and pi's expand key shows the
 * requested-vs-used rows that differ, warnings, the contract (each output, the repair turn), the
 * isolation report, the transcript and the answer; a contract that was not kept shows collapsed too. Both complete the slim stored details from the run's record (ADR 0193). This is only what the person sees; the model reads `formatResult`.
 * Pure line functions first, then the pi renderers over them.
 */
import type { Component } from "@earendil-works/pi-tui";
import type { Contract } from "../../../runtime/contract.ts";
import type { RequestedVsUsed, ResultDetails, RunResult } from "../../../runtime/result.ts";
import type { RunRecord } from "../../../runtime/runs.ts";
import { LinesComponent } from "./lines-component.ts";
import { formatDuration, formatTokens, formatTokensWithContext, formatTools, formatTurns, isEnded, isRunResult, type RunView, stateIcon, statsLine, viewOfRecord, viewOfResult, withRecord } from "./run-view.ts";
import { liveIcon } from "./spinner.ts";
import { dotted, fit, shown, type Style, widthOf, wrapped } from "./text.ts";

/** The arguments of a `subagent` call as they stream in (any may be missing). */
export interface SubagentArgs {
	subagent_type?: string;
	description?: string;
	run_in_background?: boolean;
	resume?: string;
	prompt?: string;
}

/** The call line: `subagent explore · review the math module`, with the live stats while it runs. */
export function subagentCallLines(args: SubagentArgs, live: RunView | null, width: number, style: Style): string[] {
	const title = style.fg("toolTitle", style.bold("subagent"));
	const type = shown(args.subagent_type ?? "general-purpose");
	const description = shown((args.description ?? "").replace(/\s+/g, " "));
	const tags = dotted([args.run_in_background ? "background" : null, args.resume ? `resume ${shown(args.resume)}` : null]);
	if (live && !isEnded(live.state)) {
		// One line when everything fits; else the headline (with the description) and, below, the id and stats.
		const head = `${title} ${liveIcon(live.state, style, Date.now())} ${style.bold(live.type)}${live.description ? ` · ${live.description}` : ""}`;
		const stats = style.fg("dim", `${live.id} · ${compactStats(live)}`);
		const one = `${head} · ${stats}`;
		return widthOf(one) <= width ? [one] : [fit(head, width), fit(`  ${stats}`, width)];
	}
	return [fit(`${title} ${style.bold(type)}${description ? ` · ${description}` : ""}${tags ? style.fg("muted", ` · ${tags}`) : ""}`, width)];
}

/** `3/20 turns · 5 tools · 12k tok · 1m04s`: the stats of a tool row (no cost, no queue). */
export function compactStats(view: RunView): string {
	if (view.state === "queued") return statsLine(view);
	return dotted([formatTurns(view), formatTools(view.toolUses), `${formatTokens(view.tokens)} tok`, view.runningMs === null ? null : formatDuration(view.runningMs)]);
}

/** The activity line under a running call. */
export function activityLines(view: RunView, width: number, style: Style): string[] {
	if (isEnded(view.state)) return [];
	return [fit(style.fg("muted", `↳ ${view.activity ?? view.state}`), width)];
}

/**
 * `✓ completed · faux/m · read-only · reviewer · 2 turns · 1 tool · 1.4k tok · 4.0s`; a `flag` (a
 * broken contract) comes right after the state, where a cut line still shows it. With a `width`,
 * the capability, then the persona, then the model give way before the counts and the time are cut.
 */
export function summaryLine(view: RunView, style: Style, flag: string | null = null, width = Number.POSITIVE_INFINITY): string {
	const tone = view.state === "completed" ? "success" : view.state === "failed" ? "error" : "warning";
	const lead = `${stateIcon(view.state, style)} ${style.fg(tone, view.state)}${flag ? ` · ${style.fg("error", flag)}` : ""} · `;
	const counts = [formatTurns(view), formatTools(view.toolUses), formatTokensWithContext(view), view.runningMs === null ? "not started" : formatDuration(view.runningMs)];
	let names: (string | null)[] = [view.model, view.capability, view.persona];
	for (const drop of [1, 2, 0]) {
		if (widthOf(lead) + widthOf(dotted([...names, ...counts])) <= width) break;
		names = names.map((name, index) => (index === drop ? null : name));
	}
	return `${lead}${style.fg("dim", dotted([...names, ...counts]))}`;
}

function show(value: unknown): string {
	return shown(value === null || value === undefined ? "none" : typeof value === "string" ? value : JSON.stringify(value));
}

/** Requested-vs-used rows whose value the request did not get, one line each. */
export function differingRows(rows: readonly RequestedVsUsed[]): string[] {
	return rows.filter((row) => row.note !== null).map((row) => `${shown(row.field)}: ${show(row.requested)} → ${show(row.used)} (${shown(row.note ?? "")})`);
}

/** The isolation report in one line (its summary, else its fields), or none without a report. */
export function isolationLines(isolation: Record<string, unknown> | null): string[] {
	if (!isolation) return [];
	return [shown(typeof isolation.summary === "string" ? isolation.summary : JSON.stringify(isolation))];
}

/** `contract kept` / `contract not kept`, then each output (✓/✗, name, path or why) and the repair turn. */
export function contractLines(contract: Contract | null | undefined): string[] {
	if (!contract) return [];
	const outputs = contract.outputs.map((output) =>
		output.ok ? `✓ ${shown(output.name)}${output.path ? ` ${shown(output.path)}` : ""}` : `✗ ${shown(output.name)}: ${shown(output.reason ?? "not produced")}`,
	);
	const repair = contract.repair;
	const repairLine =
		repair === null ? [] : repair.steered ? [`repair turn sent; ${repair.worked ? "it fixed the contract" : "the contract is still not kept"}`] : [`no repair turn: ${shown(repair.skipped ?? "")}`];
	return [contract.ok ? "contract kept" : "contract not kept", ...outputs, ...repairLine];
}

/** The expanded detail of a finished run: differing request values, warnings, contract, isolation, transcript, answer. */
export function resultDetailLines(result: ResultDetails, width: number, style: Style): string[] {
	const lines: string[] = [];
	const section = (title: string, items: string[]) => {
		if (items.length === 0) return;
		lines.push(fit(style.fg("muted", title), width));
		for (const item of items) lines.push(...wrapped(item, width, "  "));
	};
	if (result.error) section("error", [result.error]);
	// The contract has its own section below; its requested-vs-used row would say it twice.
	section("requested vs used", differingRows((result.requestedVsUsed ?? []).filter((row) => row.field !== "contract")));
	section("warnings", (result.warnings ?? []).map(shown));
	const [verdict, ...contract] = contractLines(result.contract);
	if (verdict) section(verdict, contract);
	section(result.verify ? (result.verify.ok ? "verify passed" : "verify FAILED") : "verify", verifyLines(result.verify));
	section("receipt (observed by cadre)", receiptLines(result.receipt));
	section("isolation", isolationLines(result.isolation ?? null));
	// The whole path (a person copies it), wrapped when it does not fit.
	if (result.transcript) lines.push(...wrapped(`transcript ${result.transcript}`, width, "", Number.POSITIVE_INFINITY, "  ").map((line) => style.fg("muted", line)));
	lines.push("", ...wrapped(result.text ?? "(no final text)", width));
	return lines;
}

/** What a finished run must show even collapsed: a failed verify (issue 23), a contract not kept, or nothing. */
export function resultFlag(result: Pick<ResultDetails, "contract" | "verify">): string | null {
	if (result.verify && !result.verify.ok) return "VERIFY FAILED";
	return result.contract && !result.contract.ok ? "contract not kept" : null;
}

/** The verify section: the command, how it ended, the repair turn, the end of a failing one's output. */
export function verifyLines(verify: RunResult["verify"] | undefined): string[] {
	if (!verify) return [];
	const lines = [`${verify.ok ? "✓" : "✗"} ${shown(verify.command)} · ${verify.exitCode === null ? "no exit code" : `exit ${verify.exitCode}`} · ${(verify.durationMs / 1000).toFixed(1)}s`];
	if (verify.repair) lines.push(verify.repair.steered ? `repair turn sent; ${verify.repair.worked ? "verify passed after it" : "verify still fails"}` : `no repair turn: ${shown(verify.repair.skipped ?? "")}`);
	if (!verify.ok && verify.outputTail) lines.push(...verify.outputTail.split("\n").slice(-8).map(shown));
	return lines;
}

/** The receipt: each changed file with +/-, the command counts and the last commands with exit codes, tool uses. */
export function receiptLines(receipt: RunResult["receipt"] | undefined): string[] {
	if (!receipt) return [];
	const files = receipt.files.map((f) => `${shown(f.path)}${f.added === null ? "" : ` +${f.added}/-${f.removed}`}`);
	const commands = receipt.commands.map((c) => `$ ${shown(c.command)} → ${c.exitCode === null ? "killed" : `exit ${c.exitCode}`}${c.durationMs === null ? "" : ` ${(c.durationMs / 1000).toFixed(1)}s`}`);
	const tools = Object.entries(receipt.toolUses).map(([name, n]) => `${shown(name)} ${n}`).join(", ");
	return [...files, `${receipt.commandCount} commands, ${receipt.failedCommands} failed`, ...commands, `tool uses: ${tools || "none"}`];
}

/** A finished `subagent` or fetched result: the summary line, and the detail when expanded. */
export function resultLines(result: ResultDetails, expanded: boolean, width: number, style: Style, hint = ""): string[] {
	const view = viewOfResult(result);
	const summary = summaryLine(view, style, resultFlag(result), width);
	const withHint = hint && !expanded && widthOf(`${summary}  ${hint}`) <= width ? `${summary}  ${hint}` : summary;
	return expanded ? [fit(withHint, width), ...resultDetailLines(result, width, style)] : [fit(withHint, width)];
}

/** A background spawn's answer: where the run went, and its state now (`live`, when the run is of this session). */
export function startedLines(result: ResultDetails, width: number, style: Style, live: RunView | null = null): string[] {
	const view = live ?? viewOfResult(result);
	return [fit(`${style.fg("accent", "↗")} ${style.bold(view.id)} ${style.fg("muted", `in the background (${view.state}) · /subagents opens it`)}`, width)];
}

/** The `get_subagent_result` call line. */
export function fetchCallLines(args: { agent_id?: string | string[]; wait?: boolean; timeout?: number }, width: number, style: Style): string[] {
	const ids = Array.isArray(args.agent_id) ? args.agent_id : args.agent_id ? [args.agent_id] : [];
	const waiting = args.wait ? (typeof args.timeout === "number" ? `wait ${args.timeout}s` : "wait") : null;
	return [fit(`${style.fg("toolTitle", style.bold("get_subagent_result"))} ${ids.map(shown).join(", ")}${waiting ? style.fg("muted", ` · ${waiting}`) : ""}`, width)];
}

/** Each fetched run: finished ones as a summary (with the answer when expanded), running ones with their progress. */
export function fetchResultLines(results: readonly ResultDetails[], live: (id: string) => RunView | null, expanded: boolean, width: number, style: Style): string[] {
	const lines: string[] = [];
	for (const result of results) {
		const current = live(result.id);
		if (!isEnded(String(result.status)) && current) {
			lines.push(fit(`${stateIcon(current.state, style)} ${style.bold(current.id)} ${style.fg("dim", statsLine(current))}`, width), ...activityLines(current, width, style).map((line) => `  ${line}`).map((line) => fit(line, width)));
			continue;
		}
		lines.push(fit(`${style.bold(shown(result.id))} ${summaryLine(viewOfResult(result), style, resultFlag(result))}`, width));
		if (expanded) lines.push(...resultDetailLines(result, width, style));
	}
	return lines;
}

/** The `steer_subagent` call line. */
export function steerCallLines(args: { agent_id?: string; message?: string }, width: number, style: Style): string[] {
	const message = shown((args.message ?? "").replace(/\s+/g, " "));
	return [fit(`${style.fg("toolTitle", style.bold("steer_subagent"))} ${shown(args.agent_id ?? "")}${message ? style.fg("muted", ` "${message}"`) : ""}`, width)];
}

/** A tool answer without details (a refusal, the steer confirmation): its text, safe, a few lines unless expanded. */
export function textResultLines(text: string, isError: boolean, expanded: boolean, width: number, style: Style): string[] {
	const lines = wrapped(text, width, "", expanded ? Number.POSITIVE_INFINITY : 4);
	return lines.map((line) => (isError ? style.fg("error", line) : style.fg("muted", line)));
}

// ── pi renderers ──

/** What the renderers need from the running extension. */
export interface ToolRenderHost {
	/** The live record of a run of this session, if it is one. */
	get(id: string): RunRecord | undefined;
	/** The run a running `subagent` call started (its partial results carry no details). */
	runOfToolCall(toolCallId: string): string | undefined;
	/** Rows of running children to refresh while they run (elapsed time), until their run ends. */
	track(refresh: () => void, runId: string): void;
}

/** The renderers' view of pi's render context (the fields cadre uses). */
export interface RenderContext {
	toolCallId: string;
	state: Record<string, unknown>;
	isError: boolean;
	invalidate(): void;
	keyHint?(keybinding: string, description: string): string;
}

type ToolResult = { content: { type: string; text?: string }[]; details?: unknown };

function textOf(result: ToolResult): string {
	return result.content
		.filter((part) => part.type === "text")
		.map((part) => part.text ?? "")
		.join("\n");
}

const lines = (render: (width: number) => string[]): Component => new LinesComponent(render);

/** The three tools' renderers, for `pi.registerToolRenderer`. */
export function createToolRenderers(host: ToolRenderHost) {
	const liveView = (id: unknown): RunView | null => {
		const run = typeof id === "string" ? host.get(id) : undefined;
		return run ? viewOfRecord(run) : null;
	};
	const hint = (context: RenderContext) => context.keyHint?.("app.tools.expand", "to expand") ?? "";
	/** Slim details (ADR 0188, 0193) with what the run's record holds; without the record, the answer is the result's text. */
	const completed = (details: ResultDetails, result: ToolResult): ResultDetails => {
		const whole = withRecord(details, host.get(details.id));
		return whole.text === undefined ? { ...whole, text: textOf(result) } : whole;
	};

	const subagent = {
		renderCall: (args: SubagentArgs, theme: Style, context: RenderContext) => lines((width) => subagentCallLines(args ?? {}, liveView(context.state.runId), width, theme)),
		renderResult: (result: ToolResult, options: { expanded: boolean; isPartial: boolean }, theme: Style, context: RenderContext) => {
			const details = result.details;
			if (options.isPartial) {
				const runId = host.runOfToolCall(context.toolCallId);
				if (runId !== undefined && context.state.runId !== runId) {
					context.state.runId = runId;
					host.track(() => context.invalidate(), runId);
				}
				const live = liveView(runId);
				return lines((width) => (live ? activityLines(live, width, theme) : textResultLines(textOf(result), false, false, width, theme)));
			}
			if (!isRunResult(details)) return lines((width) => textResultLines(textOf(result), context.isError, options.expanded, width, theme));
			if (!isEnded(details.status)) {
				// The row follows its run until it ends (pi renders it again on each refresh).
				const run = host.get(details.id);
				if (run && !isEnded(run.state) && context.state.followed !== run.id) {
					context.state.followed = run.id;
					host.track(() => context.invalidate(), run.id);
				}
				return lines((width) => startedLines(details, width, theme, liveView(details.id)));
			}
			return lines((width) => resultLines(completed(details, result), options.expanded, width, theme, hint(context)));
		},
	};

	const fetch = {
		renderCall: (args: Parameters<typeof fetchCallLines>[0], theme: Style) => lines((width) => fetchCallLines(args ?? {}, width, theme)),
		renderResult: (result: ToolResult, options: { expanded: boolean }, theme: Style, context: RenderContext) => {
			const stored = Array.isArray(result.details) ? result.details.filter(isRunResult) : [];
			const details = stored.length === 1 ? [completed(stored[0] as ResultDetails, result)] : stored.map((one) => withRecord(one, host.get(one.id)));
			const text = textOf(result);
			return lines((width) => [
				...fetchResultLines(details, liveView, options.expanded, width, theme),
				// Unknown ids and other refusals are only in the text.
				...(details.length === 0 ? textResultLines(text, context.isError, options.expanded, width, theme) : []),
			]);
		},
	};

	const steer = {
		renderCall: (args: Parameters<typeof steerCallLines>[0], theme: Style) => lines((width) => steerCallLines(args ?? {}, width, theme)),
		renderResult: (result: ToolResult, options: { expanded: boolean }, theme: Style, context: RenderContext) =>
			lines((width) => textResultLines(textOf(result), context.isError, options.expanded, width, theme)),
	};

	return { subagent, fetch, steer };
}
