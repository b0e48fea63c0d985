/**
 * The span plumbing of src/telemetry/telemetry.ts without pi (ADR 0145): a run's `invoke_agent`
 * span goes under the span of the run that spawned it (depth + 1) — what nesting will use — else
 * under the current turn; child session events become chat and tool spans; nothing happens when
 * telemetry is off.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ChildHandle } from "../../src/runtime/pi/child-session.ts";
import type { RunRecord, SpawnPlan } from "../../src/runtime/runs.ts";
import { createTelemetry } from "../../src/telemetry/telemetry.ts";
import { record } from "../runtime/record.ts";
import { type OtlpReceiver, startOtlpReceiver } from "../support/otlp-receiver.ts";

let receiver: OtlpReceiver;
beforeEach(async () => {
	receiver = await startOtlpReceiver();
});
afterEach(async () => {
	await receiver.close();
});

type Listener = (event: { type: string; [key: string]: unknown }) => void;

/** A plan whose child only streams the events the test emits. */
function plan(): { plan: SpawnPlan; emit: Listener } {
	let listener: Listener = () => {};
	const child = { transcript: null, observe: (next: Listener) => ((listener = next), () => (listener = () => {})) } as unknown as ChildHandle;
	return { plan: { createChild: async () => child } as unknown as SpawnPlan, emit: (event) => listener(event) };
}

const assistant = (stopReason: string) => ({ role: "assistant", stopReason, model: "m", usage: { input: 10, output: 5, cacheRead: 2, cacheWrite: 1 }, content: [{ type: "text", text: "hidden" }] });

describe("run spans", () => {
	it("puts a run spawned by a run under that run's span, at depth 2; a session's run under the turn", async () => {
		const telemetry = createTelemetry();
		await telemetry.enable({ url: `${receiver.endpoint}/v1/traces`, captureContent: false, source: "OTEL_EXPORTER_OTLP_ENDPOINT" });
		telemetry.startTurn("session-1", 1);
		const outer: RunRecord = record({ id: "general-purpose-aaaaaa", type: "general-purpose", state: "running" });
		const inner: RunRecord = record({ id: "explore-bbbbbb", type: "explore", state: "running" });
		const a = plan();
		const b = plan();
		await telemetry.runs().traced(a.plan).createChild(outer, "/tmp", null);
		await telemetry.runs(outer.id).traced(b.plan).createChild(inner, "/tmp", null);
		b.emit({ type: "turn_start" });
		b.emit({ type: "message_end", message: assistant("toolUse") });
		b.emit({ type: "tool_execution_start", toolCallId: "call-1", toolName: "read", args: { path: "x" } });
		b.emit({ type: "tool_execution_end", toolCallId: "call-1", toolName: "read", isError: true, result: "nope" });
		telemetry.runs(outer.id).ended({ ...inner, state: "completed" });
		telemetry.runs().ended({ ...outer, state: "failed", error: "boom" });
		telemetry.endTurn();
		await telemetry.shutdown();
		const byName = Object.fromEntries(receiver.spans.map((span) => [span.name, span]));
		const turn = byName.session_turn;
		const outerSpan = byName["invoke_agent general-purpose"];
		const innerSpan = byName["invoke_agent explore"];
		expect(outerSpan?.parentSpanId).toBe(turn?.spanId);
		expect(innerSpan?.parentSpanId).toBe(outerSpan?.spanId);
		expect(outerSpan?.attributes["cadre.depth"]).toBe(1);
		expect(innerSpan?.attributes["cadre.depth"]).toBe(2);
		expect(outerSpan?.attributes["error.type"]).toBe("_OTHER");
		expect(outerSpan?.status.code).toBe(2);
		expect(byName["chat m"]?.parentSpanId).toBe(innerSpan?.spanId);
		expect(byName["chat m"]?.attributes).toMatchObject({ "gen_ai.usage.input_tokens": 10, "gen_ai.usage.cache_creation.input_tokens": 1, "gen_ai.response.finish_reasons": ["tool_call"] });
		expect(byName["execute_tool read"]?.attributes).toMatchObject({ "gen_ai.tool.call.id": "call-1", "error.type": "tool_error" });
		expect(inner.traceId).toBe(turn?.traceId);
		expect(JSON.stringify(receiver.spans)).not.toContain("hidden");
	});

	it("leaves the plan as it is and sets no trace id when off", async () => {
		const telemetry = createTelemetry();
		await telemetry.enable(null);
		const a = plan();
		expect(telemetry.runs().traced(a.plan)).toBe(a.plan);
		expect(telemetry.enabled).toBe(false);
	});
});
