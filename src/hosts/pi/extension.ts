/**
 * cadre's pi extension: the `subagent`, `get_subagent_result` and `steer_subagent` tools, the
 * `/subagents` command, completion notifications, lifecycle events on `pi.events` and the service
 * other extensions reach through it (spec 04). Children run in-process through the SDK adapter.
 *
 * This entry wires the parts: session-state.ts (the session's state and the `subagent` tool),
 * query-tools.ts (result, steer, `/subagents`), ui/ (the TUI), service.ts, session-events.ts.
 */
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { enabledTypes } from "../../resolve/resolve.ts";
import { checkPiVersion } from "../../runtime/pi/version.ts";
import { registerResultTool, registerSteerTool, registerSubagentsCommand } from "./query-tools.ts";
import { createService, SERVICE_REQUEST } from "./service.ts";
import { registerSessionEvents } from "./session-events.ts";
import { mergeQueueReport } from "./commands.ts";
import { createExtensionHost, explainInputs, type ExtensionHost, registerSpawnTool, safeLoad } from "./session-state.ts";
import { subagentDescription } from "./tools.ts";
import { type CadreUi, registerCadreUi } from "./ui/index.ts";
import { inTreeOrder } from "../../runtime/run-tree.ts";

export { type CadreService, SERVICE_READY, SERVICE_REQUEST } from "./service.ts";

/** Everything a person sees in pi's TUI (src/hosts/pi/ui/), over the host's session. */
function registerUi(host: ExtensionHost): CadreUi {
	return registerCadreUi(host.pi, {
		// In tree order: a nested run under the run that spawned it (issue 21).
		runs: () => inTreeOrder(host.state?.registry.list() ?? []),
		ownRuns: () => host.state?.registry.own() ?? [],
		get: (id) => host.state?.registry.get(id),
		conversation: (id) => host.state?.registry.conversation(id) ?? null,
		steer: async (id, message) => {
			await host.state?.registry.steer(id, message);
		},
		stop: async (id) => host.state?.registry.stop(id),
		cwd: () => host.state?.ctx.cwd ?? process.cwd(),
		widgetMode: () => host.state?.widget ?? "background",
		childList: () => host.state?.spawner.loaded()?.settings.ui.list ?? true,
		types: () => {
			const loaded = host.state ? safeLoad(host, host.state.ctx) : null;
			return loaded ? enabledTypes(loaded) : [];
		},
		mergeQueue: async (dryRun) => {
			const s = host.state;
			if (!s) return { text: "cadre: no session yet.", branches: 0 };
			return mergeQueueReport({ registry: s.registry, cwd: s.ctx.cwd, explain: (type) => explainInputs(host, s, type) }, dryRun);
		},
	});
}

/** The cadre extension. */
export default function cadre(pi: ExtensionAPI): void {
	const version = checkPiVersion();
	if (!version.ok) {
		pi.on("session_start", (_event, ctx) => {
			if (ctx.hasUI) ctx.ui.notify(version.message, "error");
			else process.stderr.write(`${version.message}\n`);
		});
		return;
	}
	const host = createExtensionHost(pi);
	registerSpawnTool(host, subagentDescription(null));
	registerResultTool(host);
	registerSteerTool(host);
	registerSubagentsCommand(host);
	host.ui = registerUi(host);
	const service = createService(host);
	pi.events.on(SERVICE_REQUEST, (reply) => {
		if (typeof reply === "function") reply(service);
	});
	registerSessionEvents(host, service);
}
