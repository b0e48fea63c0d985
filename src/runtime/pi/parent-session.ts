/**
 * What a child takes from its parent's pi session: the parent's live model runtime, and where the
 * parent's children keep their transcripts and run records.
 */

import { join } from "node:path";
import type { ExtensionContext, ModelRuntime } from "@earendil-works/pi-coding-agent";

/** The parent's model runtime (same providers, keys and extension-registered models). */
export function parentModelRuntime(ctx: ExtensionContext): ModelRuntime {
	// pi builds `ctx.modelRegistry` as `new ModelRegistry(session's ModelRuntime)` and keeps it
	// in a TypeScript-private field; reading it is the only way to share the runtime in 1.6.
	const runtime = (ctx.modelRegistry as unknown as { runtime?: ModelRuntime }).runtime;
	if (!runtime) throw new Error("cadre: pi's model registry has no runtime; this pi version is not supported.");
	return runtime;
}

/** Where a parent's children keep their transcripts (spec 04 "Transcripts"). */
export function transcriptDir(ctx: ExtensionContext, agentDir: string): string {
	const file = ctx.sessionManager.getSessionFile();
	if (file) return childrenDir(ctx.sessionManager.getSessionDir(), ctx.sessionManager.getSessionId());
	return join(agentDir, "cadre", "transcripts");
}

/** The transcripts and run records of persisted parent session `sessionId` in pi's `sessionDir` (ADR 0045). */
export function childrenDir(sessionDir: string, sessionId: string): string {
	return join(sessionDir, "cadre", sessionId);
}
