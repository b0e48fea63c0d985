/**
 * What the parent asks of its runs in pi: the `get_subagent_result` and `steer_subagent` tools and
 * the `/subagents` command (spec 04 "Operator control").
 */
import { progressText, type RunResult, resultDetails, runResult, formatResult } from "../../runtime/result.ts";
import { subagentsCommand } from "./commands.ts";
import { type ExtensionHost, ensure, explainInputs } from "./session-state.ts";
import { RESULT_DESCRIPTION, RESULT_TOOL, resultParameters, STEER_DESCRIPTION, STEER_TOOL, steerParameters } from "./tools.ts";

/** `get_subagent_result`: a run's result, its progress, or (with `wait`) its end. */
export function registerResultTool(host: ExtensionHost): void {
	host.pi.registerTool({
		name: RESULT_TOOL,
		label: "Sub-agent result",
		description: RESULT_DESCRIPTION,
		parameters: resultParameters,
		async execute(_toolCallId, params, signal, _onUpdate, ctx) {
			const s = ensure(host, ctx);
			const ids = Array.isArray(params.agent_id) ? params.agent_id : [params.agent_id];
			// `timeout: 0` polls (answers at once); no timeout waits until the end.
			const timeoutMs = typeof params.timeout === "number" && params.timeout >= 0 ? params.timeout * 1000 : null;
			const answers = await Promise.all(
				ids.map(async (id): Promise<{ text: string; result: RunResult | null }> => {
					const run = s.registry.get(id);
					if (!run) return { text: `No sub-agent run with id ${id}. Known: ${s.registry.list().map((r) => r.id).join(", ") || "none"}.`, result: null };
					const finished = params.wait ? await s.registry.wait(id, timeoutMs, signal) : run.endedAt !== null ? run : null;
					if (!finished) return { text: progressText(run), result: runResult(run, s.maxResultChars) };
					finished.fetched = true;
					const result = runResult(finished, s.maxResultChars);
					return { text: formatResult(result), result };
				}),
			);
			return {
				content: [{ type: "text", text: answers.map((answer) => answer.text).join("\n\n---\n\n") }],
				details: answers.map((answer) => answer.result).filter((result): result is RunResult => result !== null).map(resultDetails),
			};
		},
	});
}

/** `steer_subagent`: a message to a queued or running run. */
export function registerSteerTool(host: ExtensionHost): void {
	host.pi.registerTool({
		name: STEER_TOOL,
		label: "Steer sub-agent",
		description: STEER_DESCRIPTION,
		parameters: steerParameters,
		async execute(_toolCallId, params, _signal, _onUpdate, ctx) {
			const run = await ensure(host, ctx).registry.steer(params.agent_id, params.message);
			return { content: [{ type: "text", text: `Message ${run.state === "queued" ? "buffered for" : "sent to"} ${run.id}.` }], details: undefined };
		},
	});
}

/** `/subagents`: the live view in the TUI, else the text commands. */
export function registerSubagentsCommand(host: ExtensionHost): void {
	host.pi.registerCommand("subagents", {
		description: "Sub-agent runs (a live view in the TUI); list, stop <id>, explain <type>, transcript <id>, worktrees [list|apply <id>|clean]",
		getArgumentCompletions: (prefix) => host.ui?.completions(prefix) ?? null,
		handler: async (args, ctx) => {
			const s = ensure(host, ctx);
			if (args.trim() === "" && (await host.ui?.openView(ctx))) return;
			const text = subagentsCommand(args, {
				registry: s.registry,
				skippedRecords: s.skippedRecords,
				cwd: ctx.cwd,
				explain: (type) => explainInputs(host, s, type),
			});
			const output = await text;
			if (ctx.hasUI) ctx.ui.notify(output, "info");
			else process.stdout.write(`${output}\n`);
		},
	});
}
