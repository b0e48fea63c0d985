/**
 * What the parent asks of its runs in pi: the `get_subagent_result` and `steer_subagent` tools and
 * the `/subagents` command (spec 04 "Operator control").
 */
import { resultToolDefinition, steerToolDefinition } from "../spawn/delegation-tools.ts";
import { subagentsCommand } from "./commands.ts";
import { type ExtensionHost, ensure, explainInputs, rootScope } from "./session-state.ts";

/** `get_subagent_result`: a run's result, its progress, or (with `wait`) its end. */
export function registerResultTool(host: ExtensionHost): void {
	host.pi.registerTool(resultToolDefinition((ctx) => rootScope(host, ctx)));
}

/** `steer_subagent`: a message to a queued or running run. */
export function registerSteerTool(host: ExtensionHost): void {
	host.pi.registerTool(steerToolDefinition((ctx) => rootScope(host, ctx)));
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
