/**
 * The pi extension's traces (ADR 0145, docs/telemetry.md): at session start, telemetry is turned on
 * when the environment or settings `telemetry.otlp` (user settings or a trusted project) name an
 * OTLP endpoint; each prompt of the parent session, from `agent_start` to `agent_settled`, is a
 * `session_turn` span the runs it spawns go under; the session's end exports what is buffered.
 */
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { LoadResult } from "../../files/types.ts";
import { telemetryConfig } from "../../telemetry/config.ts";
import { createTelemetry, type Telemetry } from "../../telemetry/telemetry.ts";

/** Options for {@link sessionTelemetry}. */
export interface SessionTelemetryOptions {
	/** The files for the session's cwd as pi trusts the project, or null when they cannot be loaded. */
	load(ctx: ExtensionContext): LoadResult | null;
}

/** The telemetry of one parent session: give `runs()` to its spawner and call `close` at its end. */
export function sessionTelemetry(pi: ExtensionAPI, options: SessionTelemetryOptions): Telemetry {
	const telemetry = createTelemetry();
	let turns = 0;
	let open = false;
	pi.on("session_start", async (_event, ctx) => {
		await telemetry.enable(telemetryConfig(process.env, options.load(ctx)?.settings.telemetry.otlp ?? null));
	});
	// A retry or a queued message continues the same prompt: one span until the session settles.
	pi.on("agent_start", (_event, ctx) => {
		if (open || !telemetry.enabled) return;
		open = true;
		telemetry.startTurn(ctx.sessionManager.getSessionId(), ++turns);
	});
	pi.on("agent_settled", () => {
		if (!open) return;
		open = false;
		telemetry.endTurn();
	});
	return telemetry;
}
