/**
 * How a completion notification looks in pi's chat (issue 11 item 3, issue 15): instead of the
 * model-facing text (`[cadre-notification]`, a wrapped transcript path, a line addressed to the
 * model), each child of the message gets its icon, type, description, turns, tool uses, tokens,
 * duration and a preview; the expanded view (pi's expand key) shows each whole result. A message
 * covers one child or a batch; its `details` are {@link NotificationDetails} (`{ runs }`), or one
 * `RunResult` in sessions written before batching. The model still reads `content`.
 */
import type { ResultDetails } from "../../../runtime/result.ts";
import type { RunRecord } from "../../../runtime/runs.ts";
import type { NotificationDetails } from "../notifications.ts";
import { formatDuration, formatTokens, formatTools, formatTurns, isRunResult, stateIcon, viewOfResult, withRecord } from "./run-view.ts";
import { resultDetailLines, resultFlag } from "./tool-rendering.ts";
import { dotted, fit, type Style, wrapped } from "./text.ts";

/** The runs a notification message covers, whatever shape its details have. */
export function notificationRuns(details: unknown): ResultDetails[] {
	if (isRunResult(details)) return [details];
	const runs = (details as Partial<NotificationDetails> | null)?.runs;
	return Array.isArray(runs) ? runs.filter(isRunResult) : [];
}

/** How many preview lines a collapsed child shows. */
const PREVIEW_LINES = 2;

/** One child of a notification: its headline, stats and a preview (or, expanded, the whole result). */
export function notificationRunLines(result: ResultDetails, expanded: boolean, width: number, style: Style): string[] {
	const view = viewOfResult(result);
	const flag = resultFlag(result);
	// the flag first, so a line cut to a narrow width still shows it
	const head = `${stateIcon(view.state, style)} ${flag ? `${style.fg("error", style.bold(flag))} · ` : ""}${style.bold(view.type)} · ${view.description} ${style.fg("muted", `(${view.id}, ${view.state})`)}`;
	const stats = dotted([formatTurns(view), formatTools(view.toolUses), `${formatTokens(view.tokens)} tok`, view.runningMs === null ? "not started" : formatDuration(view.runningMs)]);
	const lines = [fit(head, width), fit(`  ${style.fg("dim", stats)}`, width)];
	if (expanded) return [...lines, ...resultDetailLines(result, width - 2, style).map((line) => fit(`  ${line}`, width))];
	const preview = result.text ?? result.error ?? "(no text)";
	return [...lines, ...wrapped(preview.replace(/\s+/g, " ").trim(), width, "  ", PREVIEW_LINES).map((line) => style.fg("toolOutput", line))];
}

/**
 * The whole notification: a header for a batch, then each child. `record` finds a run's record,
 * so an expanded child shows what its slim details leave to the record (ADR 0188).
 */
export function notificationLines(details: unknown, fallbackText: string, expanded: boolean, width: number, style: Style, hint = "", record?: (id: string) => RunRecord | undefined): string[] {
	const runs = notificationRuns(details);
	if (runs.length === 0) return wrapped(fallbackText, width, "", expanded ? Number.POSITIVE_INFINITY : 4);
	const header = `${style.fg("accent", "cadre")} ${runs.length === 1 ? "background sub-agent finished" : `${runs.length} background sub-agents finished`}`;
	const lines = [fit(hint && !expanded ? `${header}  ${hint}` : header, width)];
	for (const run of runs) lines.push(...notificationRunLines(expanded && record ? withRecord(run, record(run.id)) : run, expanded, width, style));
	return lines;
}
