/**
 * The extension's handlers of the parent session's events: start (skipped records, the service,
 * worktree recovery), each agent start (pi's prompt options), the parent's own writes (for the
 * escape check), turns and settling (notifications), and shutdown (every run stopped).
 */
import { closeSandboxWhenIdle } from "../../sandbox/manager.ts";
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { safeText } from "../../core/terminal-text.ts";
import { counted } from "../../runtime/result.ts";
import { recoverInBackground } from "../../isolation/worktree-recovery.ts";
import { singleShot, stoppedAtExit } from "./notifications.ts";
import { touchedPath } from "./parent-writes.ts";
import { type CadreService, SERVICE_READY } from "./service.ts";
import { type ExtensionHost, ensure, refreshDescription } from "./session-state.ts";

/** Registers the session-start handler: warnings, the `subagent` description, the service, recovery. */
function onSessionStart(host: ExtensionHost, service: CadreService): void {
	host.pi.on("session_start", (_event, ctx) => {
		const s = ensure(host, ctx);
		if (s.skippedRecords.length > 0) {
			const text = safeText(`cadre: skipped ${counted(s.skippedRecords.length, "run record")} of this session:\n${s.skippedRecords.join("\n")}`);
			if (ctx.hasUI) ctx.ui.notify(text, "warning");
			else process.stderr.write(`${text}\n`);
		}
		refreshDescription(host, ctx);
		host.pi.events.emit(SERVICE_READY, service);
		void recoverInBackground(ctx.cwd, ctx.hasUI ? ctx.ui : null);
	});
}

/** Registers every parent-session handler of the extension. */
export function registerSessionEvents(host: ExtensionHost, service: CadreService): void {
	const { pi, notifications } = host;
	onSessionStart(host, service);

	pi.on("before_agent_start", async (event, ctx) => {
		const s = ensure(host, ctx);
		s.promptOptions = event.systemPromptOptions;
		// Through the spawner's cache: loaded again only when a file changed (issue 28).
		refreshDescription(host, ctx, await s.spawner.loadCached());
		notifications.runStarting();
	});

	// The parent's own writes, so the escape check does not blame a worktree child for them. Stamped
	// when a call starts and when it ends: pi runs one message's tool calls concurrently, so an edit
	// that started before a worktree run may still write after the run's "before" fingerprint.
	const recordParentWrite = (event: { toolName: string; input: unknown }, ctx: ExtensionContext) => {
		const path = touchedPath(event.toolName, event.input, ctx.cwd);
		if (path === null) return;
		const s = ensure(host, ctx);
		s.touched.push({ path, at: Date.now() });
		if (s.touched.length > 1000) s.touched.splice(0, s.touched.length - 1000);
	};
	pi.on("tool_call", recordParentWrite);
	pi.on("tool_result", recordParentWrite);

	// A prompt on its way: pi runs its input hooks and checks before its run starts (notifications.ts).
	pi.on("input", () => {
		notifications.promptPreparing();
		return { action: "continue" as const };
	});
	pi.on("turn_start", () => notifications.turnStarted());
	pi.on("agent_settled", (_event, ctx) => {
		ensure(host, ctx);
		notifications.settled();
	});

	pi.on("session_shutdown", async (event, ctx) => {
		notifications.close();
		const s = host.state;
		if (!s) return;
		const going = s.registry.own().filter((run) => run.endedAt === null);
		await s.registry.stopAll();
		await host.telemetry.shutdown();
		await closeSandboxWhenIdle();
		if (singleShot(ctx.mode)) for (const line of stoppedAtExit(going, event.reason)) process.stderr.write(line);
	});
}
