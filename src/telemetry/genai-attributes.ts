/**
 * The attributes of cadre's spans, as plain data (ADR 0145): the GenAI semantic conventions'
 * `gen_ai.*` keys and cadre's own `cadre.*` ones, from a run record and pi's session events.
 * Message content (prompts, answers, tool arguments and results) only when the caller says so —
 * `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true` — never by default.
 */
import type { RunRecord } from "../runtime/runs.ts";

/** A span attribute value. */
export type AttributeValue = string | number | boolean | string[];
/** Span attributes. */
export type SpanAttributes = Record<string, AttributeValue>;

/** One event of a child's pi session, as plain data (pi's `AgentSessionEvent`, read structurally). */
export interface SessionEvent {
	type: string;
	[key: string]: unknown;
}

/** A `provider/id` model name split; either part null when absent. */
export function modelOf(model: string | null): { provider: string | null; id: string | null } {
	if (!model) return { provider: null, id: null };
	const slash = model.indexOf("/");
	return slash < 0 ? { provider: null, id: model } : { provider: model.slice(0, slash) || null, id: model.slice(slash + 1) || null };
}

/** The conventions' finish reason of pi's stop reason (`toolUse` → `tool_call`). */
export function finishReasons(stopReason: unknown): string[] {
	switch (stopReason) {
		case "toolUse":
			return ["tool_call"];
		case "stop":
		case "length":
		case "error":
		case "aborted":
			return [stopReason];
		default:
			return typeof stopReason === "string" && stopReason ? [stopReason] : [];
	}
}

/** The child's pi session id, from its transcript's file name (`<time>_<session id>.jsonl`), or the run id. */
function conversationId(run: RunRecord): string {
	const match = /_([0-9a-f-]{36})\.jsonl$/i.exec(run.transcript ?? "");
	return match?.[1] ?? run.id;
}

/** A value of the config that later issues add (a budget, verification), as an attribute, or none. */
function optional(config: unknown, key: string): AttributeValue | undefined {
	const value = (config as Record<string, unknown>)[key];
	if (value === undefined || value === null) return undefined;
	return typeof value === "string" || typeof value === "number" || typeof value === "boolean" ? value : JSON.stringify(value);
}

/** A text as the conventions' message list: one message of one text part. */
function messages(role: string, text: string): string {
	return JSON.stringify([{ role, parts: [{ type: "text", content: text }] }]);
}

/** An `invoke_agent` span's attributes at its start. */
export function agentAttributes(run: RunRecord, depth: number, captureContent: boolean): SpanAttributes {
	const { provider, id } = modelOf(run.config.model);
	const attributes: SpanAttributes = {
		"gen_ai.operation.name": "invoke_agent",
		"gen_ai.agent.id": run.id,
		"gen_ai.agent.name": run.type,
		"gen_ai.conversation.id": conversationId(run),
		"cadre.depth": depth,
		"cadre.isolation": run.config.isolation,
		"cadre.background": run.background,
	};
	if (provider) attributes["gen_ai.provider.name"] = provider;
	if (id) attributes["gen_ai.request.model"] = id;
	if (run.config.capabilityMode) attributes["cadre.capability"] = run.config.capabilityMode;
	if (run.config.persona) attributes["cadre.persona"] = run.config.persona;
	if (run.config.maxTurns !== null) attributes["cadre.max_turns"] = run.config.maxTurns;
	if (run.resumeOf) attributes["cadre.resume_of"] = run.resumeOf;
	for (const key of ["budget", "verify"]) {
		const value = optional(run.config, key);
		if (value !== undefined) attributes[`cadre.${key}`] = value;
	}
	if (run.config.outputs.length > 0 || run.config.outputSchema) attributes["cadre.contract.outputs"] = run.config.outputs.map((output) => output.name);
	if (captureContent) attributes["gen_ai.input.messages"] = messages("user", run.prompt);
	return attributes;
}

/** What an `invoke_agent` span learns at the run's end: state, totals, contract. */
export function agentEndAttributes(run: RunRecord, captureContent: boolean): SpanAttributes {
	const attributes: SpanAttributes = {
		"cadre.state": run.state,
		"cadre.turns": run.turns,
		"cadre.tool_uses": run.toolUses,
		"gen_ai.usage.input_tokens": run.usage.input,
		"gen_ai.usage.output_tokens": run.usage.output,
		"gen_ai.usage.cache_read.input_tokens": run.usage.cacheRead,
		"gen_ai.usage.cache_creation.input_tokens": run.usage.cacheWrite,
		"cadre.cost": run.usage.cost,
		"gen_ai.conversation.id": conversationId(run),
	};
	if (run.limitReached) attributes["cadre.limit_reached"] = true;
	if (run.contract) attributes["cadre.contract.ok"] = run.contract.ok;
	if (captureContent && run.text) attributes["gen_ai.output.messages"] = messages("assistant", run.text);
	return attributes;
}

/** A `chat` span's attributes from pi's assistant message: the response model, usage and finish reasons. */
export function chatAttributes(message: Record<string, unknown>): SpanAttributes {
	const usage = (message.usage ?? {}) as Record<string, unknown>;
	const count = (key: string) => (typeof usage[key] === "number" ? (usage[key] as number) : 0);
	const attributes: SpanAttributes = {
		"gen_ai.usage.input_tokens": count("input"),
		"gen_ai.usage.output_tokens": count("output"),
		"gen_ai.usage.cache_read.input_tokens": count("cacheRead"),
		"gen_ai.usage.cache_creation.input_tokens": count("cacheWrite"),
		"gen_ai.response.finish_reasons": finishReasons(message.stopReason),
	};
	const responseModel = message.responseModel ?? message.model;
	if (typeof responseModel === "string" && responseModel) attributes["gen_ai.response.model"] = responseModel;
	if (typeof message.responseId === "string" && message.responseId) attributes["gen_ai.response.id"] = message.responseId;
	return attributes;
}

/** The answer's text and tool calls as `gen_ai.output.messages` (content capture only). */
export function chatContent(message: Record<string, unknown>): SpanAttributes {
	const content = Array.isArray(message.content) ? (message.content as Record<string, unknown>[]) : [];
	const parts = content.flatMap((part): Record<string, unknown>[] => {
		if (part.type === "text") return [{ type: "text", content: String(part.text ?? "") }];
		if (part.type === "toolCall") return [{ type: "tool_call", id: part.id, name: part.name, arguments: part.arguments }];
		return [];
	});
	return { "gen_ai.output.messages": JSON.stringify([{ role: "assistant", parts, finish_reason: finishReasons(message.stopReason)[0] ?? null }]) };
}

/** A tool call's arguments or result as one attribute (content capture only). */
export function toolContent(key: "gen_ai.tool.call.arguments" | "gen_ai.tool.call.result", value: unknown): SpanAttributes {
	return value === undefined ? {} : { [key]: typeof value === "string" ? value : JSON.stringify(value) };
}
