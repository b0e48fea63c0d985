/**
 * The OpenTelemetry side of cadre's traces (ADR 0145, docs/telemetry.md): the only module that
 * imports OpenTelemetry, loaded by src/telemetry/telemetry.ts on first use when an endpoint is set.
 * One tracer provider per process, a batch processor and the OTLP/HTTP JSON exporter; spans follow
 * the GenAI semantic conventions — `invoke_agent {type}` (INTERNAL) per run, `chat {model}`
 * (CLIENT) per model request, `execute_tool {name}` (INTERNAL) per tool call, `invoke_workflow
 * {name}` around a batch — under the parent session's turn or the run that spawned the run.
 * Parents are passed explicitly (never an async context), so concurrent children never mix.
 */
import { type Attributes, type Context, ROOT_CONTEXT, type Span, SpanKind, SpanStatusCode, type Tracer, trace } from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import type { RunRecord } from "../runtime/runs.ts";
import type { TelemetryConfig } from "./config.ts";
import { agentAttributes, agentEndAttributes, chatAttributes, chatContent, modelOf, type SessionEvent, toolContent } from "./genai-attributes.ts";

/** What the host holds of the tracing of this process (see {@link createTracing}). */
export interface Tracing {
	/** Continue the trace a W3C `traceparent` names (`cadre run` under `TRACEPARENT`); a bad one is ignored. */
	continueTrace(traceparent: string | undefined): void;
	/** A span for the parent session's turn (its prompt to its settling): runs spawned meanwhile go under it. */
	startTurn(sessionId: string, turn: number): void;
	endTurn(): void;
	/** An `invoke_workflow {name}` span runs go under until `end` (`cadre run --batch`). */
	startWorkflow(name: string): { end(error: string | null): void };
	/** Start the run's `invoke_agent` span; its parent is `spawnedBy`'s span, else the turn or workflow. Returns the trace id. */
	startRun(run: RunRecord, spawnedBy: string | null): string;
	/** A raw event of the run's child session (chat and tool spans). */
	observe(runId: string, event: SessionEvent): void;
	endRun(run: RunRecord): void;
	/** Export what is buffered (the session's end, `cadre run`'s exit). */
	flush(): Promise<void>;
	shutdown(): Promise<void>;
}

interface RunSpans {
	span: Span;
	context: Context;
	depth: number;
	/** The run's model, `provider` and `id` (every chat span's request model). */
	model: { provider: string | null; id: string | null };
	chat: Span | null;
	/** Open tool spans by tool call id. */
	tools: Map<string, Span>;
}

/** End the run's open chat span with what pi's assistant message says (none: the request never answered). */
function endChat(spans: RunSpans, message: Record<string, unknown> | null, captureContent: boolean): void {
	const chat = spans.chat;
	if (!chat) return;
	spans.chat = null;
	if (message) {
		chat.setAttributes(chatAttributes(message));
		if (captureContent) chat.setAttributes(chatContent(message));
		if (message.stopReason === "error") {
			chat.setAttribute("error.type", "_OTHER");
			chat.setStatus({ code: SpanStatusCode.ERROR, message: typeof message.errorMessage === "string" ? message.errorMessage : undefined });
		}
	}
	chat.end();
}

/** One event of a run's child session: a turn opens a chat span, its answer closes it; tools open and close theirs. */
function observeChild(tracer: Tracer, spans: RunSpans, event: SessionEvent, captureContent: boolean): void {
	const message = (event.message ?? null) as Record<string, unknown> | null;
	switch (event.type) {
		case "turn_start": {
			endChat(spans, null, captureContent);
			const { provider, id: model } = spans.model;
			spans.chat = tracer.startSpan(
				model ? `chat ${model}` : "chat",
				{ kind: SpanKind.CLIENT, attributes: { "gen_ai.operation.name": "chat", ...(provider ? { "gen_ai.provider.name": provider } : {}), ...(model ? { "gen_ai.request.model": model } : {}) } },
				spans.context,
			);
			break;
		}
		case "message_end":
			if (message?.role === "assistant") endChat(spans, message, captureContent);
			break;
		case "tool_execution_start": {
			const name = String(event.toolName ?? "tool");
			const id = String(event.toolCallId ?? name);
			const attributes: Attributes = { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name, "gen_ai.tool.call.id": id, "gen_ai.tool.type": "function" };
			if (captureContent) Object.assign(attributes, toolContent("gen_ai.tool.call.arguments", event.args));
			spans.tools.set(id, tracer.startSpan(`execute_tool ${name}`, { kind: SpanKind.INTERNAL, attributes }, spans.context));
			break;
		}
		case "tool_execution_end": {
			const id = String(event.toolCallId ?? event.toolName ?? "tool");
			const span = spans.tools.get(id);
			if (!span) break;
			spans.tools.delete(id);
			if (captureContent) span.setAttributes(toolContent("gen_ai.tool.call.result", event.result));
			if (event.isError === true) {
				span.setAttribute("error.type", "tool_error");
				span.setStatus({ code: SpanStatusCode.ERROR });
			}
			span.end();
			break;
		}
		default:
			break;
	}
}

/** The tracer of one process: spans go to `config.url` in batches. */
export function createTracing(config: TelemetryConfig): Tracing {
	const exporter = new OTLPTraceExporter({ url: config.url });
	const provider = new TracerProvider({
		resource: resourceFromAttributes({ "service.name": process.env.OTEL_SERVICE_NAME?.trim() || "cadre" }),
		spanProcessors: [new BatchSpanProcessor({ exporter })],
	});
	const tracer = provider.getTracer("cadre");
	const propagator = new W3CTraceContextPropagator();
	const runs = new Map<string, RunSpans>();
	let root: Context = ROOT_CONTEXT;
	let turn: { span: Span; context: Context } | null = null;
	let workflow: Context | null = null;
	const scope = () => turn?.context ?? workflow ?? root;


	return {
		continueTrace(traceparent) {
			if (!traceparent) return;
			const extracted = propagator.extract(ROOT_CONTEXT, { traceparent }, { get: (carrier, key) => carrier[key as "traceparent"], keys: (carrier) => Object.keys(carrier) });
			if (trace.getSpanContext(extracted)) root = extracted;
		},
		startTurn(sessionId, n) {
			turn?.span.end();
			const span = tracer.startSpan(
				"session_turn",
				{ kind: SpanKind.INTERNAL, attributes: { "gen_ai.conversation.id": sessionId, "cadre.turn": n } },
				workflow ?? root,
			);
			turn = { span, context: trace.setSpan(workflow ?? root, span) };
		},
		endTurn() {
			turn?.span.end();
			turn = null;
		},
		startWorkflow(name) {
			const span = tracer.startSpan(`invoke_workflow ${name}`, { kind: SpanKind.INTERNAL, attributes: { "gen_ai.operation.name": "invoke_workflow", "gen_ai.workflow.name": name } }, root);
			workflow = trace.setSpan(root, span);
			return {
				end(error) {
					if (error) {
						span.setAttribute("error.type", "_OTHER");
						span.setStatus({ code: SpanStatusCode.ERROR, message: error });
					}
					span.end();
					workflow = null;
				},
			};
		},
		startRun(run, spawnedBy) {
			const spawner = spawnedBy ? runs.get(spawnedBy) : undefined;
			const parent = spawner?.context ?? scope();
			const depth = (spawner?.depth ?? 0) + 1;
			const span = tracer.startSpan(`invoke_agent ${run.type}`, { kind: SpanKind.INTERNAL, attributes: agentAttributes(run, depth, config.captureContent) }, parent);
			runs.get(run.id)?.span.end();
			runs.set(run.id, { span, context: trace.setSpan(parent, span), depth, model: modelOf(run.config.model), chat: null, tools: new Map() });
			return span.spanContext().traceId;
		},
		observe(runId, event) {
			const spans = runs.get(runId);
			if (spans) observeChild(tracer, spans, event, config.captureContent);
		},
		endRun(run) {
			const spans = runs.get(run.id);
			if (!spans) return;
			endChat(spans, null, config.captureContent);
			for (const span of spans.tools.values()) span.end();
			spans.tools.clear();
			spans.span.setAttributes(agentEndAttributes(run, config.captureContent));
			if (run.state !== "completed") {
				spans.span.setAttribute("error.type", run.state === "failed" ? "_OTHER" : run.state);
				spans.span.setStatus({ code: SpanStatusCode.ERROR, message: run.error ?? run.state });
			}
			spans.span.end();
			// The context stays while the process lives: a run it spawned may still be running.
		},
		flush: () => provider.forceFlush(),
		async shutdown() {
			turn?.span.end();
			turn = null;
			await provider.shutdown();
		},
	};
}
